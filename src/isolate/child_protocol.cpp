#include "isolate/child_protocol.hpp"

#include <fmt/format.h>

#include <atomic>
#include <fstream>
#include <stdexcept>

#include "report/json_report.hpp"

namespace dnnbench {
namespace {

// A field of a request, or a clear message naming where it should have been.
template <typename T>
T field(const nlohmann::json& json, const char* key, const std::string& source) {
  if (!json.is_object() || !json.contains(key))
    throw std::invalid_argument(fmt::format("{}: no \"{}\"", source, key));
  try {
    return json.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(
        fmt::format("{}: \"{}\" is {}, not the expected type", source, key, json.at(key).dump()));
  }
}

nlohmann::json graph_job_to_json(const GraphJob& job) {
  return {{"graph_file", job.graph_file},
          {"graph_path", job.graph_path},
          {"journal", job.journal},
          {"max_rows", job.max_rows},
          {"dump_folder", job.dump_folder}};
}

GraphJob graph_job_from_json(const nlohmann::json& json, const std::string& source) {
  return {field<std::string>(json, "graph_file", source), field<std::string>(json, "graph_path", source),
          field<std::string>(json, "journal", source), field<std::size_t>(json, "max_rows", source),
          field<std::string>(json, "dump_folder", source)};
}

struct JobToJson {
  nlohmann::json operator()(const GraphJob& job) const { return graph_job_to_json(job); }
  nlohmann::json operator()(const WorkerJobs&) const { return nlohmann::json::object(); }
  nlohmann::json operator()(const BuildAheadPart& p) const { return {{"part", p.part}, {"parts", p.parts}}; }
  nlohmann::json operator()(const RepeatPass& p) const {
    return {{"pass", p.pass}, {"results", p.results}, {"journal", p.journal}, {"resume", p.resume}};
  }
  nlohmann::json operator()(const ProfiledPlan& p) const { return {{"plan", p.plan}}; }
};

ChildJob job_from_json(ChildRole role, const nlohmann::json& json, const std::string& source) {
  switch (role) {
    case ChildRole::graph:
      return graph_job_from_json(json, source);
    case ChildRole::worker:
      return WorkerJobs{};
    case ChildRole::build_ahead: {
      BuildAheadPart p{field<int>(json, "part", source), field<int>(json, "parts", source)};
      if (p.parts < 1 || p.part < 1 || p.part > p.parts)
        throw std::invalid_argument(fmt::format("{}: part {} of {} is not a part", source, p.part, p.parts));
      return p;
    }
    case ChildRole::repeat_pass: {
      RepeatPass p{field<int>(json, "pass", source), field<std::string>(json, "results", source),
                   field<std::string>(json, "journal", source), field<bool>(json, "resume", source)};
      if (p.pass < 1) throw std::invalid_argument(fmt::format("{}: pass {} is not a pass", source, p.pass));
      return p;
    }
    case ChildRole::profile:
      return ProfiledPlan{field<std::string>(json, "plan", source)};
  }
  throw std::invalid_argument(fmt::format("{}: unknown role", source));
}

}  // namespace

std::string_view child_role_name(ChildRole role) {
  switch (role) {
    case ChildRole::graph:
      return "graph";
    case ChildRole::worker:
      return "worker";
    case ChildRole::build_ahead:
      return "build-ahead";
    case ChildRole::repeat_pass:
      return "repeat-pass";
    case ChildRole::profile:
      return "profile";
  }
  return "?";
}

std::optional<ChildRole> child_role_from_name(std::string_view name) {
  for (auto role : {ChildRole::graph, ChildRole::worker, ChildRole::build_ahead, ChildRole::repeat_pass,
                    ChildRole::profile})
    if (child_role_name(role) == name) return role;
  return std::nullopt;
}

ChildRole ChildRequest::role() const {
  return static_cast<ChildRole>(job.index());
}

nlohmann::json child_request_to_json(const ChildRequest& request) {
  return {{"protocol", kChildProtocolVersion},
          {"role", child_role_name(request.role())},
          {"run_arguments", request.run_arguments},
          {"job", std::visit(JobToJson{}, request.job)}};
}

ChildRequest child_request_from_json(const nlohmann::json& json, const std::string& source) {
  const auto version = field<int>(json, "protocol", source);
  if (version != kChildProtocolVersion)
    throw std::invalid_argument(
        fmt::format("{}: protocol {}, this build speaks {}: parent and child are two "
                    "different builds",
                    source, version, kChildProtocolVersion));
  const auto name = field<std::string>(json, "role", source);
  const auto role = child_role_from_name(name);
  if (!role) throw std::invalid_argument(fmt::format("{}: \"role\" {} is not a child role", source, name));
  ChildRequest request;
  request.run_arguments = field<std::vector<std::string>>(json, "run_arguments", source);
  if (!json.contains("job")) throw std::invalid_argument(fmt::format("{}: no \"job\"", source));
  request.job = job_from_json(*role, json.at("job"), source + ": job");
  return request;
}

ChildRequest read_child_request(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot read the child request", file.string()));
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not JSON (byte {})", file.string(), e.byte));
  }
  return child_request_from_json(json, file.string());
}

std::vector<std::string> effective_run_arguments(const ChildRequest& request) {
  auto arguments = request.run_arguments;
  if (const auto* pass = std::get_if<RepeatPass>(&request.job)) {
    arguments.insert(arguments.end(),
                     {"-o", pass->results, "--journal", pass->journal, "-q", "--progress", "none"});
    if (pass->resume) arguments.emplace_back("--resume");
  }
  return arguments;
}

std::vector<std::string> child_command(const ChildRequest& request, const std::filesystem::path& folder,
                                       const std::string& self) {
  // One file per child: a worker's replacement or the next pass never reads its predecessor's.
  static std::atomic<unsigned> next{0};
  const auto role = std::string(child_role_name(request.role()));
  const auto file = folder / fmt::format("{}-{}.request.json", role, ++next);
  write_json_file(file, child_request_to_json(request));
  return {self, std::string(kChildSubcommand), role, file.string()};
}

std::string worker_job_line(const GraphJob& job, std::uint64_t id) {
  auto json = graph_job_to_json(job);
  json["id"] = id;
  return json.dump();
}

std::pair<GraphJob, std::uint64_t> worker_job_from_line(const std::string& line) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("worker job line: not JSON (byte {})", e.byte));
  }
  return {graph_job_from_json(json, "worker job line"), field<std::uint64_t>(json, "id", "worker job line")};
}

std::string job_done_line(const JobDone& reply) {
  nlohmann::json json{{"id", reply.id}};
  if (!reply.retiring.empty()) json["retiring"] = reply.retiring;
  return json.dump();
}

std::optional<JobDone> job_done_from_line(const std::string& line) {
  try {
    const auto json = nlohmann::json::parse(line);
    JobDone reply{json.at("id").get<std::uint64_t>(), ""};
    if (json.contains("retiring")) reply.retiring = json.at("retiring").get<std::string>();
    return reply;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace dnnbench
