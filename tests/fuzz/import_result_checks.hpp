#pragma once
// What every importer's fuzz target demands of a result read from hostile bytes named `file`: each
// graph counted at least once from a source naming the file, each refusal one line naming the
// file's line. Aborts (a libFuzzer finding) with what broke.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input/import.hpp"

namespace dnnbench::fuzz {

[[noreturn]] inline void fail(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s fuzz: %s\n", target, what.c_str());
  std::abort();
}

inline void check_import_result(const char* target, const ImportResult& r, const std::string& file) {
  const auto prefix = file + ":";
  for (const auto& g : r.graphs)
    if (g.count < 1 || g.source.rfind(prefix, 0) != 0)
      fail(target, "a graph counted " + std::to_string(g.count) + " from " + g.source);
  for (const auto& n : r.not_imported) {
    if (n.reason.find('\n') != std::string::npos) fail(target, "a reason over several lines: " + n.reason);
    if (n.source.rfind(prefix, 0) != 0)
      fail(target, "a refusal that does not name the log's line: " + n.source);
  }
}

}  // namespace dnnbench::fuzz
