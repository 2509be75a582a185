#include "input/glob.hpp"

#include <algorithm>
#include <optional>

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string_view> split_segments(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));  // "a//b" is "a/b"
    start = end + 1;
  }
  return parts;
}

// Matches a bracket expression at pattern[i] ('[') against c. Returns the index after ']' and
// whether c matched, or nullopt when the bracket is not closed (then '[' is a literal).
std::optional<std::pair<std::size_t, bool>> match_set(std::string_view p, std::size_t i, char c) {
  std::size_t j = i + 1;
  bool negate = false;
  if (j < p.size() && (p[j] == '!' || p[j] == '^')) {
    negate = true;
    ++j;
  }
  bool matched = false;
  bool first = true;
  while (j < p.size() && (p[j] != ']' || first)) {
    first = false;
    char lo = p[j];
    if (lo == '\\' && j + 1 < p.size()) lo = p[++j];
    char hi = lo;
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      hi = p[j + 2];
      if (hi == '\\' && j + 3 < p.size()) hi = p[++j + 2];
      j += 2;
    }
    if (lo <= c && c <= hi) matched = true;
    ++j;
  }
  if (j >= p.size()) return std::nullopt;
  return std::make_pair(j + 1, matched != negate);
}

// One segment against one name: iterative matching with a single backtrack point for the last
// `*`, which is linear for patterns with one star and never exponential.
bool match_segment(std::string_view p, std::string_view name) {
  if (!name.empty() && name.front() == '.' && (p.empty() || p.front() != '.')) return false;
  std::size_t pi = 0, ni = 0;
  std::size_t star_p = std::string_view::npos, star_n = 0;
  while (ni < name.size()) {
    if (pi < p.size()) {
      const char pc = p[pi];
      if (pc == '*') {
        star_p = ++pi;
        star_n = ni;
        continue;
      }
      if (pc == '?') {
        ++pi;
        ++ni;
        continue;
      }
      if (pc == '[') {
        if (const auto set = match_set(p, pi, name[ni])) {
          if (set->second) {
            pi = set->first;
            ++ni;
            continue;
          }
        } else if (name[ni] == '[') {
          ++pi;
          ++ni;
          continue;
        }
      } else {
        char literal = pc;
        std::size_t width = 1;
        if (pc == '\\' && pi + 1 < p.size()) {
          literal = p[pi + 1];
          width = 2;
        }
        if (literal == name[ni]) {
          pi += width;
          ++ni;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p;
    ni = ++star_n;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool is_hidden(std::string_view name) {
  return !name.empty() && name.front() == '.' && name != "." && name != "..";
}

// Segment lists against each other; `**` takes zero or more non-hidden segments. Memoized on
// (pattern index, path index) so that several `**` stay polynomial.
class SegmentMatcher {
 public:
  SegmentMatcher(const std::vector<std::string_view>& pattern, const std::vector<std::string_view>& path)
      : p_(pattern), s_(path), memo_((p_.size() + 1) * (s_.size() + 1), -1) {}
  bool match(std::size_t i, std::size_t j) {
    auto& cell = memo_[i * (s_.size() + 1) + j];
    if (cell >= 0) return cell == 1;
    bool result;
    if (i == p_.size()) {
      result = j == s_.size();
    } else if (p_[i] == "**") {
      result = match(i + 1, j) || (j < s_.size() && !is_hidden(s_[j]) && match(i, j + 1));
    } else {
      result = j < s_.size() && match_segment(p_[i], s_[j]) && match(i + 1, j + 1);
    }
    cell = result ? 1 : 0;
    return result;
  }

 private:
  const std::vector<std::string_view>& p_;
  const std::vector<std::string_view>& s_;
  std::vector<signed char> memo_;
};

}  // namespace

bool has_glob_characters(std::string_view text) {
  return text.find_first_of("*?[") != std::string_view::npos;
}

bool glob_match(std::string_view pattern, std::string_view path) {
  const auto p = split_segments(pattern);
  const auto s = split_segments(path);
  return SegmentMatcher(p, s).match(0, 0);
}

std::vector<std::string> glob_files(const std::string& pattern) {
  // The literal leading folders are the walk's root; the rest is matched against the paths
  // found under it.
  const bool absolute = !pattern.empty() && pattern.front() == '/';
  const auto segments = split_segments(pattern);
  if (segments.empty()) return {};
  std::size_t literal = 0;
  std::string base = absolute ? "/" : "";
  while (literal + 1 < segments.size() && !has_glob_characters(segments[literal])) {
    base += std::string(segments[literal]) + "/";
    ++literal;
  }
  std::string rest;
  bool deep = false;
  for (std::size_t k = literal; k < segments.size(); ++k) {
    if (!rest.empty()) rest += "/";
    rest += segments[k];
    if (segments[k] == "**") deep = true;
  }
  const std::size_t depth = segments.size() - literal;  // segments left to match

  std::vector<std::string> found;
  std::error_code ec;
  const fs::path root = base.empty() ? fs::path(".") : fs::path(base);
  if (!fs::is_directory(root, ec)) return found;
  // `**` does not enter hidden folders, so the walk skips them unless the pattern names one.
  const bool names_hidden = rest.find("/.") != std::string::npos || rest.front() == '.';
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      const bool too_deep = !deep && static_cast<std::size_t>(it.depth()) + 1 >= depth;
      if (too_deep || (is_hidden(it->path().filename().string()) && !names_hidden))
        it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(type_ec)) continue;
    const auto relative = it->path().lexically_relative(root).generic_string();
    if (glob_match(rest, relative)) found.push_back(base + relative);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace dnnbench
