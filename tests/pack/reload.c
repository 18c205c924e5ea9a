/* reload.c - the unit t_reload.c loads, unloads and loads again: value() returns VAL. */
int value(void) { return VAL; }
