// empty: no bindings, no constants, does nothing; measures the cost of a
// dispatch alone (see ../README.md).
__global__ void __launch_bounds__(64) empty() {}
