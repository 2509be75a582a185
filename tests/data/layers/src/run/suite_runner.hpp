#include "providers/provider.hpp"  // downward: allowed
