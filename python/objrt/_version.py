"""The package's version: include/objrt.h's OBJRT_VERSION (a test holds the two equal)."""
__version__ = "0.1.0"
