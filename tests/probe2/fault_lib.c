/* An archive member of the fault sweep (fault_main.c). */
int helper(void) { return 2; }
