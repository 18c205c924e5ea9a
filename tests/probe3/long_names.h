/* long_names.h - names longer than any buffer a lookup might cut them to (issue 40, item 1):
 * 600 bytes before the bytes that tell them apart. */
#define X8 "xxxxxxxx"
#define X64 X8 X8 X8 X8 X8 X8 X8 X8
#define LONG600 X64 X64 X64 X64 X64 X64 X64 X64 X64 X8 X8 X8 "xxxx"    /* 600 bytes */
