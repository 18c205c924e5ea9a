int which(void); int user(void) { return which() * 10; }
