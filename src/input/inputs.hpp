#pragma once
// Expands the -g arguments into the suite's graph inputs, in a deterministic order:
//   - files as given (a path that does not exist is kept, so that the suite reports it);
//   - folders recursively (`.json` files, sorted);
//   - quoted shell globs, `**` included (input/glob.hpp): the `.json` files and archives they
//     match, sorted;
//   - archives (.tar, .tar.gz/.tgz, .tar.xz, .tar.bz2, .zip): their `.json` entries, extracted
//     safely (input/archive.hpp) into private temporary folders owned by the result.
// An argument may be a comma-separated list. Inputs that cannot become graphs (a refused archive
// entry, a corrupt archive, a glob matching nothing) are kept with their error, so that the
// suite reports them as graph errors and goes on.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "input/archive.hpp"

namespace dnnbench {

struct GraphInput {
  std::string path;                  // as reported: a file path, or "archive.tar.gz:dir/graph.json"
  std::filesystem::path file;        // where to read it (inside an extraction folder for archives)
  std::optional<std::string> error;  // set: not readable as a graph, for this reason
};

struct GraphInputs {
  std::vector<GraphInput> inputs;
  // Where archives were extracted; removed when the GraphInputs is destroyed.
  std::vector<std::unique_ptr<ScopedTempDir>> extraction_folders;
};

GraphInputs expand_graph_inputs(const std::vector<std::string>& arguments, const ArchiveLimits& limits = {});

}  // namespace dnnbench
