/* A unit whose names attack the terminal: tests/suites/38-probe2.sh renames each
 * placeholder (rename.py) into an escape sequence, a newline that starts a forged
 * "objrt:" line, and bytes that are not UTF-8. */
int evil_defined_placeholder_(void) { return 7; }
int evil_crash_placeholder___(volatile int *p) { return *p; }
int crash(void) { return evil_crash_placeholder___((volatile int *)0); }
int main(void) { return evil_defined_placeholder_(); }
