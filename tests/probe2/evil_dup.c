/* A second definition of evil.c's renamed function: the duplicate-definition error. */
int evil_defined_placeholder_(void) { return 8; }
