#include "sys/host_name.hpp"

#include <unistd.h>

namespace dnnbench {

std::string this_host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace dnnbench
