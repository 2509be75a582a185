#pragma once
// The git revision the tool was configured from. Kept out of the compile definitions: a
// definition that changes with every commit would recompile every file on each reconfigure.
namespace dnnbench {
const char* git_revision();
}
