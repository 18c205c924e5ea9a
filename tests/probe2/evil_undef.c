/* A reference to a name nothing defines (renamed by rename.py; see evil.c). */
extern int evil_undefined_placeholder(void);
int call_undefined(void) { return evil_undefined_placeholder(); }
