/* reg_absent.c - a strong reference to the bounds of a section no input has: undefined,
 * as for ld. */
extern const char __start_objrt_nowhere[];
int main(void) { return __start_objrt_nowhere[0]; }
