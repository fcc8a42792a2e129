// empty: no bindings, no constants, does nothing; measures the cost of a
// dispatch alone (see ../README.md).
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void empty(void) {}
