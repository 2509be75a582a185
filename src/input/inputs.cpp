#include "input/inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "input/glob.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

bool is_graph_file(const fs::path& path) {
  return path.extension() == ".json";
}

std::vector<std::string> folder_graph_files(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && is_graph_file(it->path())) found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

class Expander {
 public:
  explicit Expander(const ArchiveLimits& limits) : limits_(limits) {}

  void add_argument(const std::string& part) {
    std::error_code ec;
    if (fs::is_directory(part, ec)) {
      for (const auto& file : folder_graph_files(part)) add_file(file);
    } else if (fs::exists(part, ec) || !has_glob_characters(part)) {
      add_file(part);
    } else {
      auto matches = glob_files(part);
      std::erase_if(matches, [](const std::string& m) { return !is_graph_file(m) && !is_archive_path(m); });
      if (matches.empty())
        result_.inputs.push_back(
            {part, part, fmt::format("{}: no graph file or archive matches this pattern", part)});
      for (const auto& match : matches) add_file(match);
    }
  }

  GraphInputs take() { return std::move(result_); }

 private:
  void add_file(const std::string& path) {
    std::error_code ec;
    if (is_archive_path(path) && fs::is_regular_file(path, ec))
      add_archive(path);
    else
      result_.inputs.push_back({path, path, std::nullopt});
  }

  void add_archive(const std::string& path) {
    auto folder = std::make_unique<ScopedTempDir>("dnnbench-archive");
    std::vector<GraphInput> found;
    std::vector<GraphInput> refused;
    for (auto& entry : extract_archive(path, folder->path(), limits_)) {
      GraphInput input{entry.name.empty() ? path : path + ":" + entry.name, entry.file, entry.error};
      (entry.error ? refused : found).push_back(std::move(input));
    }
    // Graphs in the sorted order of their names (archives list entries in any order); refusals
    // after them, in the order they were met.
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    if (found.empty() && refused.empty())
      refused.push_back({path, path, fmt::format("{}: the archive holds no .json graph file", path)});
    for (auto& input : found) result_.inputs.push_back(std::move(input));
    for (auto& input : refused) result_.inputs.push_back(std::move(input));
    result_.extraction_folders.push_back(std::move(folder));
  }

  ArchiveLimits limits_;
  GraphInputs result_;
};

}  // namespace

GraphInputs expand_graph_inputs(const std::vector<std::string>& arguments, const ArchiveLimits& limits) {
  Expander expander(limits);
  for (const auto& argument : arguments) {
    // "-g a.json,b.json" is the same as "-g a.json -g b.json".
    std::stringstream parts(argument);
    std::string part;
    while (std::getline(parts, part, ','))
      if (!part.empty()) expander.add_argument(part);
  }
  return expander.take();
}

}  // namespace dnnbench
