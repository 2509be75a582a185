#include "run/suite_runner.hpp"  // a provider reaching up into run/: check-layers must refuse it
