# Waits for an ICI row no chip ever sends: a deadlock, said before any run
# with the file and line of the wait (tests/cosim, tests/workloads).
nop
ici_wait rows=1
