#include "run/inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace dnnbench {

std::vector<std::string> expand_graph_inputs(const std::vector<std::string>& arguments) {
  std::vector<std::string> paths;
  for (const auto& argument : arguments) {
    // "-g a.json,b.json" is the same as "-g a.json -g b.json".
    std::stringstream parts(argument);
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part.empty()) continue;
      std::error_code ec;
      if (std::filesystem::is_directory(part, ec)) {
        std::vector<std::string> found;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(part, ec))
          if (entry.is_regular_file() && entry.path().extension() == ".json")
            found.push_back(entry.path().string());
        std::sort(found.begin(), found.end());
        paths.insert(paths.end(), found.begin(), found.end());
      } else {
        paths.push_back(part);
      }
    }
  }
  return paths;
}

}  // namespace dnnbench
