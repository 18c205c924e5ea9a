#!/usr/bin/env python3
"""maxrss.py OUT CMD...: runs CMD (stdout and stderr into OUT), then prints its exit status
and the largest resident set it reached, in KiB (getrusage of the child)."""
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
