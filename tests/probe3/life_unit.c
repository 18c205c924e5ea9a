/* life_unit.c - a unit whose load waits in the host's resolver (life_wait is undefined:
 * the resolver supplies it), and whose constructor and destructor count in the host. */
extern int life_wait;
extern int life_ctors, life_dtors;
int life(void) { return life_wait; }
__attribute__((constructor)) static void hello(void) { life_ctors++; }
__attribute__((destructor)) static void bye(void) { life_dtors++; }
