/* An indirect function defined in the unit (issue 27, item 1): a static link runs the
 * resolver and main returns 42; objrt refuses the object by name. */
static int answer_impl(void) { return 42; }
static int (*resolve_answer(void))(void) { return answer_impl; }
int answer(void) __attribute__((ifunc("resolve_answer")));
int main(void) { return answer(); }
