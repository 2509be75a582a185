#pragma once
// The providers this binary was configured without, one "name: why" a line (empty when every
// provider was built): CMake's find results, kept for `dnnbench list-providers` so a user sees
// what the configure output said without reconfiguring.
namespace dnnbench {
const char* providers_not_built();
}
