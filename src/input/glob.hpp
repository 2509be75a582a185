#pragma once
// Shell-style globs over std::filesystem, with `**` (which glob(3) lacks):
//   `*` any characters but '/', `?` one character but '/', `[abc]` `[a-z]` `[!a]` `[^a]` a set,
//   `\x` a literal x, and a whole `**` segment any number of folders (zero included).
// As in shells, a name starting with '.' is matched only by a segment that starts with '.',
// and `**` does not descend into such folders.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dnnbench {

bool has_glob_characters(std::string_view text);

// Whether `path` ('/'-separated) matches `pattern` ('/'-separated), segment by segment.
bool glob_match(std::string_view pattern, std::string_view path);

// The regular files matching `pattern` (relative to the current folder or absolute), as paths
// spelled like the pattern, sorted by their text so the order is the same on every machine.
// Folder symlinks are not followed (no cycles); unreadable folders are passed over.
std::vector<std::string> glob_files(const std::string& pattern);

}  // namespace dnnbench
