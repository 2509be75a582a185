// A build without MPI (CMake found none): distribute/distributed_run.hpp's transport is not there.
#include <stdexcept>

#include "distribute/distributed_run.hpp"

namespace dnnbench {

bool mpi_support_built() {
  return false;
}

std::unique_ptr<Transport> open_mpi_transport() {
  throw std::runtime_error(
      "this dnnbench was built without MPI support (install libopenmpi-dev and reconfigure; "
      "docs/distributed.md)");
}

}  // namespace dnnbench
