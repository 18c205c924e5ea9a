int which(void) { return WHICH; }
