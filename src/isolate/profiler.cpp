#include "isolate/profiler.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "input/archive.hpp"
#include "isolate/child_process.hpp"
#include "measure/stats.hpp"
#include "providers/activity_names.hpp"
#include "session/graph_data.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::string find_on_path(const std::string& name, const std::string& path_env) {
  for (const auto& dir : split(path_env, ':')) {
    const auto candidate = fs::path(dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
  }
  return "";
}

// One CSV record (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks).
bool read_csv_record(std::istream& in, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false, any = false;
  for (char ch; in.get(ch);) {
    any = true;
    if (quoted) {
      if (ch == '"') {
        if (in.peek() == '"') {
          field += '"';
          in.get();
        } else {
          quoted = false;
        }
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (ch == '\n') {
      fields.push_back(std::move(field));
      return true;
    } else if (ch != '\r') {
      field += ch;
    }
  }
  if (any) fields.push_back(std::move(field));
  return any;
}

// ncu writes numbers with thousands separators in some locales and versions ("1,234.5").
std::optional<double> number_of(const std::string& text) {
  std::string clean;
  for (char ch : text)
    if (ch != ',' && ch != ' ') clean += ch;
  if (clean.empty() || clean == "n/a") return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(clean, &used);
    if (used != clean.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "(256, 1, 1)" -> {256, 1, 1}; zeros when unreadable.
std::array<int, 3> dims_of(const std::string& text) {
  std::array<int, 3> dims{};
  std::string digits;
  std::size_t k = 0;
  for (char ch : text + ",") {
    if (ch >= '0' && ch <= '9') {
      digits += ch;
    } else if (!digits.empty()) {
      if (k < 3) dims[k++] = std::stoi(digits);
      digits.clear();
    }
  }
  return dims;
}

// A frequency in MHz per unit: ncu writes SM Frequency as cycle/nsecond in base units, as
// cycle/second or Hz elsewhere.
double mhz_per_unit(const std::string& unit) {
  if (unit == "cycle/nsecond" || unit == "GHz" || unit == "Ghz" || unit == "ghz") return 1e3;
  if (unit == "cycle/usecond" || unit == "MHz" || unit == "Mhz" || unit == "mhz") return 1;
  if (unit == "cycle/msecond" || unit == "KHz" || unit == "Khz" || unit == "khz") return 1e-3;
  if (unit == "cycle/second" || unit == "Hz" || unit == "hz" || unit.empty()) return 1e-6;
  throw std::runtime_error(fmt::format("ncu CSV: unknown frequency unit '{}'", unit));
}

// Durations in seconds per unit; ncu's base unit for time is the nanosecond.
double ms_per_unit(const std::string& unit) {
  if (unit == "nsecond" || unit == "ns" || unit.empty()) return 1e-6;
  if (unit == "usecond" || unit == "us") return 1e-3;
  if (unit == "msecond" || unit == "ms") return 1;
  if (unit == "second" || unit == "s") return 1e3;
  throw std::runtime_error(fmt::format("ncu CSV: unknown time unit '{}'", unit));
}

double bytes_per_unit(const std::string& unit) {
  if (unit == "Kbyte" || unit == "KB") return 1e3;
  if (unit == "Mbyte" || unit == "MB") return 1e6;
  if (unit == "Kibyte" || unit == "KiB") return 1024;
  return 1;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A file name for the row's artefacts: graph, provider, engine, unique in the run.
std::string artefact_base(const GraphResult& graph, const RowResult& row, std::size_t index) {
  return fmt::format("{:03}-{}-{}-{}", index, sanitize_for_path(graph.graph_name),
                     sanitize_for_path(row.provider), sanitize_for_path(row.engine_id.value_or("none")));
}

// The row's child under ncu, and the CSV of ncu's report.
struct NcuArtefacts {
  std::string report, csv;
};
NcuArtefacts run_ncu(const ProfileRequest& request, const std::string& base,
                     const std::vector<std::string>& child) {
  std::error_code ec;
  const auto outcome = run_child_process(ncu_command(request, base, child), request.timeout_s);
  const auto report = base + ".ncu-rep";
  if (!fs::exists(report, ec))
    throw std::runtime_error(fmt::format("ncu wrote no report: it {}{}", outcome.describe(),
                                         outcome.stderr_tail.empty() ? "" : "; " + outcome.stderr_tail));
  if (outcome.end != ChildOutcome::End::exited || outcome.exit_status != 0)
    throw std::runtime_error(fmt::format("the profiled child {}{}", outcome.describe(),
                                         outcome.stderr_tail.empty() ? "" : "; " + outcome.stderr_tail));
  const auto csv = base + ".csv";
  ChildOptions to_csv;
  to_csv.stdout_path = csv;
  const auto exported = run_child_process(
      {request.tool_path, "--import", report, "--csv", "--page", "raw", "--print-units", "base"},
      request.timeout_s, to_csv);
  if (exported.end != ChildOutcome::End::exited || exported.exit_status != 0)
    throw std::runtime_error(fmt::format("ncu --import {}{}", exported.describe(),
                                         exported.stderr_tail.empty() ? "" : ": " + exported.stderr_tail));
  return {report, csv};
}

std::string self_executable() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : self.string();
}

}  // namespace

ProfileRequest parse_profile_spec(const std::string& text) {
  ProfileRequest request;
  const auto colon = text.find(':');
  request.tool = text.substr(0, colon);
  if (request.tool != "ncu" && request.tool != "nsys")
    throw std::invalid_argument(
        fmt::format("--profile: '{}' is not a profiler; give ncu or ncu:SECTION,SECTION (nsys is refused, "
                    "docs/profiling.md)",
                    text));
  if (colon != std::string::npos) {
    request.sections = split(text.substr(colon + 1), ',');
    if (request.sections.empty())
      throw std::invalid_argument(
          fmt::format("--profile {}: no section after ':' (e.g. ncu:SpeedOfLight)", text));
    for (const auto& s : request.sections)
      if (!std::all_of(s.begin(), s.end(),
                       [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
        throw std::invalid_argument(fmt::format("--profile: section '{}' is not an ncu section name", s));
  }
  return request;
}

std::string counter_permission_problem(std::string_view text, bool is_root) {
  if (is_root) return "";
  const auto at = text.find("RmProfilingAdminOnly:");
  if (at == std::string_view::npos) return "";
  const auto value = text.substr(at + std::string_view("RmProfilingAdminOnly:").size());
  const auto first = value.find_first_not_of(" \t");
  if (first == std::string_view::npos || value[first] != '1') return "";
  return "the GPU's performance counters are readable by administrators only (RmProfilingAdminOnly: 1 in "
         "/proc/driver/nvidia/params): run as root, or load nvidia with "
         "NVreg_RestrictProfilingToAdminUsers=0";
}

std::string profiling_refusal(ProfileRequest& request, const std::string& path_env,
                              const fs::path& nvidia_params) {
  if (request.tool == "nsys")
    return "--profile nsys: nsys 2025.3.1 on the H200 machine writes a .qdstrm capture but cannot turn it "
           "into a report, so there would be nothing to read back; use --profile ncu (docs/profiling.md)";
  request.tool_path = find_on_path("ncu", path_env);
  if (request.tool_path.empty())
    return "--profile ncu: ncu (Nsight Compute) is not on PATH; install Nsight Compute or put its folder on "
           "PATH";
  std::error_code ec;
  if (fs::exists(nvidia_params, ec))
    if (auto problem = counter_permission_problem(read_file(nvidia_params), ::geteuid() == 0);
        !problem.empty())
      return "--profile ncu: " + problem;
  return "";
}

ChildRequest profile_child_request(const std::string& graph_file, const RowResult& row,
                                   const RunOptions& options, std::int64_t executions) {
  // The allowlist: nothing else of the parent's command line reaches the child.
  std::vector<std::string> argv{"-q",
                                "--progress",
                                "none",
                                "-g",
                                graph_file,
                                "--provider",
                                row.provider,
                                "--engine",
                                row.engine_id.value_or(""),
                                "--seed",
                                std::to_string(options.seed),
                                "--fp32-math",
                                row.fp32_math.value_or(std::string(fp32_math_name(options.fp32_math))),
                                "--warmup",
                                "1",
                                "--iters",
                                std::to_string(executions),
                                "--batch",
                                "1",
                                "--isolate",
                                "none",
                                "--no-kernel-activity",
                                "--compile-ahead",
                                "0"};  // the row stored its plan: no child processes under ncu
  if (options.provider_settings.cudnn_heur_mode)
    argv.insert(argv.end(), {"--heur-mode", *options.provider_settings.cudnn_heur_mode});
  return {argv, ProfiledPlan{row.plan_name.value_or("")}};
}

std::vector<std::string> ncu_command(const ProfileRequest& request, const std::string& report_base,
                                     const std::vector<std::string>& child) {
  // --clock-control none and --cache-control none: ncu otherwise locks the clocks to base and
  // flushes caches before each kernel, and its durations would not compare with dnnbench's hot,
  // unlocked kernel times.
  std::vector<std::string> argv{request.tool_path,
                                "--profile-from-start",
                                "off",
                                "--nvtx",
                                "--clock-control",
                                "none",
                                "--cache-control",
                                "none",
                                "-f",
                                "-o",
                                report_base};
  for (const auto& section : request.sections) argv.insert(argv.end(), {"--section", section});
  argv.insert(argv.end(), child.begin(), child.end());
  return argv;
}

std::vector<ProfiledKernel> kernels_from_ncu_csv(const std::string& csv, std::int64_t executions) {
  std::istringstream in(csv);
  std::vector<std::string> header, units, fields;
  // ncu may print "==PROF==" lines before the table.
  while (read_csv_record(in, header))
    if (std::find(header.begin(), header.end(), "Kernel Name") != header.end()) break;
  const auto column = [&](std::initializer_list<const char*> names) -> std::optional<std::size_t> {
    for (const char* name : names) {
      const auto it = std::find(header.begin(), header.end(), name);
      if (it != header.end()) return static_cast<std::size_t>(it - header.begin());
    }
    return std::nullopt;
  };
  const auto name_col = column({"Kernel Name"});
  const auto time_col = column({"gpu__time_duration.sum"});
  if (!name_col || !time_col)
    throw std::runtime_error("ncu CSV: no 'Kernel Name' or 'gpu__time_duration.sum' column");
  const auto sm_col = column({"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  const auto dram_col = column({"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                                "dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  const auto occ_col = column({"sm__warps_active.avg.pct_of_peak_sustained_active"});
  const auto reg_col = column({"launch__registers_per_thread"});
  const auto smem_col = column({"launch__shared_mem_per_block"});
  const auto smem_static = column({"launch__shared_mem_per_block_static"});
  const auto smem_dynamic = column({"launch__shared_mem_per_block_dynamic"});
  const auto freq_col = column({"gpc__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second"});
  const auto grid_col = column({"Grid Size"});
  const auto block_col = column({"Block Size"});
  if (!read_csv_record(in, units)) return {};
  const auto unit = [&](std::optional<std::size_t> col) {
    return col && *col < units.size() ? units[*col] : "";
  };
  const double time_scale = ms_per_unit(unit(time_col));
  const double freq_scale = freq_col ? mhz_per_unit(unit(freq_col)) : 1.0;

  struct Group {
    ProfiledKernel kernel;
    std::vector<double> durations, frequencies;
  };
  std::vector<Group> groups;
  while (read_csv_record(in, fields)) {
    if (fields.size() <= std::max(*name_col, *time_col)) continue;
    const auto value = [&](std::optional<std::size_t> col) -> std::optional<double> {
      return col && *col < fields.size() ? number_of(fields[*col]) : std::nullopt;
    };
    const auto duration = value(time_col);
    if (!duration) continue;
    ProfiledKernel k;
    k.name = fields[*name_col];
    if (grid_col && *grid_col < fields.size()) k.grid = dims_of(fields[*grid_col]);
    if (block_col && *block_col < fields.size()) k.block = dims_of(fields[*block_col]);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.kernel.name == k.name && g.kernel.grid == k.grid && g.kernel.block == k.block;
    });
    if (it == groups.end()) {
      k.sm_throughput_pct = value(sm_col);
      k.dram_throughput_pct = value(dram_col);
      k.achieved_occupancy_pct = value(occ_col);
      if (const auto r = value(reg_col)) k.registers_per_thread = static_cast<std::int64_t>(*r);
      if (const auto s = value(smem_col)) {
        k.shared_memory_bytes = static_cast<std::int64_t>(*s * bytes_per_unit(unit(smem_col)));
      } else if (value(smem_static) || value(smem_dynamic)) {
        k.shared_memory_bytes =
            static_cast<std::int64_t>(value(smem_static).value_or(0) * bytes_per_unit(unit(smem_static)) +
                                      value(smem_dynamic).value_or(0) * bytes_per_unit(unit(smem_dynamic)));
      }
      groups.push_back({k, {}, {}});
      it = groups.end() - 1;
    }
    it->durations.push_back(*duration * time_scale);
    if (const auto f = value(freq_col)) it->frequencies.push_back(*f * freq_scale);
  }
  std::vector<ProfiledKernel> kernels;
  const auto per = std::max<std::int64_t>(1, executions);
  for (auto& g : groups) {
    g.kernel.duration_ms = median_of(g.durations);
    if (!g.frequencies.empty()) g.kernel.sm_frequency_mhz = median_of(g.frequencies);
    g.kernel.launches =
        std::max<std::int64_t>(1, (static_cast<std::int64_t>(g.durations.size()) + per / 2) / per);
    kernels.push_back(std::move(g.kernel));
  }
  return kernels;
}

namespace {

// The per-execution kernel sum and the duration-weighted SM clock of `kernels`.
ProfileResult summed(const std::vector<ProfiledKernel>& kernels) {
  ProfileResult p;
  double sum = 0, weighted = 0, weight = 0;
  for (const auto& k : kernels) {
    const double w = k.duration_ms * static_cast<double>(k.launches);
    sum += w;
    if (k.sm_frequency_mhz) {
      weighted += *k.sm_frequency_mhz * w;
      weight += w;
    }
  }
  p.kernel_sum_ms = sum;
  if (weight > 0) p.sm_frequency_mhz = weighted / weight;
  return p;
}

}  // namespace

void compare_profile_with_row(ProfileResult& profile, const RowResult& row) {
  if (row.kernel_sum_stats && row.kernel_sum_stats->median > 0 && profile.kernel_sum_ms)
    profile.ratio_to_cupti = *profile.kernel_sum_ms / row.kernel_sum_stats->median;
  profile.sm_frequency_mhz = summed(profile.kernels).sm_frequency_mhz;
  if (row.timing && row.timing->clocks && row.timing->clocks->sm_mhz)
    profile.row_sm_mhz = row.timing->clocks->sm_mhz->mean;
  if (row.kernels.empty() || profile.kernels.empty()) return;
  // Launch counts are left out: ncu's capture rounds them over few executions, and the kernels'
  // identity (which plan ran) is the question.
  const auto key = [](const std::string& name, const std::array<int, 3>& grid,
                      const std::array<int, 3>& block) {
    return fmt::format("{} {}x{}x{} {}x{}x{}", name, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
  };
  std::set<std::string> in_row, in_profile;
  // The row's memsets and copies are not kernels: ncu profiles none.
  for (const auto& k : row.kernels)
    if (is_kernel_name(k.name)) in_row.insert(key(k.name, k.grid, k.block));
  profile.kernels_not_in_row.clear();
  for (const auto& k : profile.kernels) {
    const auto id = key(k.name, k.grid, k.block);
    in_profile.insert(id);
    if (!in_row.count(id)) profile.kernels_not_in_row.push_back(id);
  }
  profile.same_kernels_as_row = in_row == in_profile;
}

void profile_rows(SuiteResult& suite, const std::map<std::string, fs::path>& graph_files,
                  const RunOptions& options, const ProfileRequest& request, bool quiet) {
  std::error_code ec;
  fs::create_directories(request.directory, ec);
  const auto self = self_executable();
  const ScopedTempDir requests("dnnbench-profile");
  std::size_t index = 0;
  for (auto& graph : suite.graphs) {
    const auto file = graph_files.find(graph.graph_path);
    for (auto& row : graph.results) {
      if (row.status != RowStatus::success || !row.engine_id || !row.plan_name) continue;
      ProfileResult p;
      p.tool = request.tool;
      p.sections = request.sections;
      p.executions = request.executions;
      const auto base = (fs::path(request.directory) / artefact_base(graph, row, ++index)).string();
      if (!quiet)
        fmt::print(std::cerr, "dnnbench: profiling {} / {} / {} ({}) under ncu\n", graph.graph_name,
                   row.provider, *row.engine_id, *row.plan_name);
      try {
        if (file == graph_files.end()) throw std::runtime_error("the graph's file is gone");
        const auto child =
            child_command(profile_child_request(file->second.string(), row, options, request.executions),
                          requests.path(), self);
        const auto run = run_ncu(request, base, child);
        p.report_path = run.report, p.csv_path = run.csv;
        p.kernels = kernels_from_ncu_csv(read_file(run.csv), request.executions);
        if (p.kernels.empty()) throw std::runtime_error("ncu profiled no kernel in the capture range");
        p.kernel_sum_ms = summed(p.kernels).kernel_sum_ms;
        compare_profile_with_row(p, row);
      } catch (const std::exception& e) {
        p.error = e.what();
      }
      row.profile = std::move(p);
    }
  }
}

}  // namespace dnnbench
