#include "isolate/child_protocol.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "input/archive.hpp"

namespace dnnbench {
namespace {

ChildRequest round_trip(const ChildRequest& request) {
  return child_request_from_json(nlohmann::json::parse(child_request_to_json(request).dump()), "req.json");
}

TEST(ChildProtocol, EveryRoleRoundTripsWithItsFields) {
  const std::vector<std::string> run{"-g", "a.json", "--provider", "onednn"};
  const auto graph = round_trip({run, GraphJob{"/t/a.json", "suite.tar:a.json", "/j/g.jsonl", 1, "/d"}});
  EXPECT_EQ(graph.role(), ChildRole::graph);
  EXPECT_EQ(graph.run_arguments, run);
  const auto& job = std::get<GraphJob>(graph.job);
  EXPECT_EQ(job.graph_file, "/t/a.json");
  EXPECT_EQ(job.graph_path, "suite.tar:a.json");
  EXPECT_EQ(job.journal, "/j/g.jsonl");
  EXPECT_EQ(job.max_rows, 1u);
  EXPECT_EQ(job.dump_folder, "/d");

  EXPECT_EQ(round_trip({run, WorkerJobs{}}).role(), ChildRole::worker);
  const auto part = std::get<BuildAheadPart>(round_trip({run, BuildAheadPart{2, 3}}).job);
  EXPECT_EQ(part.part, 2);
  EXPECT_EQ(part.parts, 3);
  const auto pass = std::get<RepeatPass>(round_trip({run, RepeatPass{2, "r.pass2.json", "r.j", true}}).job);
  EXPECT_EQ(pass.pass, 2);
  EXPECT_EQ(pass.results, "r.pass2.json");
  EXPECT_EQ(pass.journal, "r.j");
  EXPECT_TRUE(pass.resume);
  EXPECT_EQ(std::get<ProfiledPlan>(round_trip({run, ProfiledPlan{"12_k2=1"}}).job).plan, "12_k2=1");

  for (auto role : {ChildRole::graph, ChildRole::worker, ChildRole::build_ahead, ChildRole::repeat_pass,
                    ChildRole::profile})
    EXPECT_EQ(child_role_from_name(child_role_name(role)), role);
  EXPECT_FALSE(child_role_from_name("isolated-child"));
}

// A pass overrides the user's outputs: the last of a repeated option wins when the child parses.
TEST(ChildProtocol, RepeatPassAddsItsOwnOutputsAfterTheParentsOptions) {
  const std::vector<std::string> run{"-g", "a.json", "-o", "user.json"};
  const auto args = effective_run_arguments({run, RepeatPass{3, "user.json.pass3.json", "p3.jsonl", false}});
  ASSERT_GT(args.size(), run.size());
  EXPECT_EQ(std::vector<std::string>(args.begin(), args.begin() + 4), run);
  const std::vector<std::string> added(args.begin() + 4, args.end());
  EXPECT_EQ(added, (std::vector<std::string>{"-o", "user.json.pass3.json", "--journal", "p3.jsonl", "-q",
                                             "--progress", "none"}));
  EXPECT_EQ(effective_run_arguments({run, RepeatPass{1, "x", "y", true}}).back(), "--resume");
  EXPECT_EQ(effective_run_arguments({run, WorkerJobs{}}), run);
  EXPECT_EQ(effective_run_arguments({run, ProfiledPlan{"p"}}), run);
}

TEST(ChildProtocol, BadRequestsNameTheFileAndTheField) {
  const auto message = [](const nlohmann::json& json) {
    try {
      child_request_from_json(json, "req.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto good = child_request_to_json({{"-g", "a.json"}, BuildAheadPart{1, 2}});
  EXPECT_EQ(message(good), "accepted");
  auto other = good;
  other["protocol"] = kChildProtocolVersion + 1;
  EXPECT_NE(message(other).find("different builds"), std::string::npos) << message(other);
  other = good;
  other["role"] = "isolated-child";
  EXPECT_NE(message(other).find("is not a child role"), std::string::npos) << message(other);
  other = good;
  other.erase("run_arguments");
  EXPECT_EQ(message(other), "req.json: no \"run_arguments\"");
  other = good;
  other["job"]["part"] = 3;
  EXPECT_EQ(message(other), "req.json: job: part 3 of 2 is not a part");
  other = good;
  other["job"]["parts"] = "two";
  EXPECT_NE(message(other).find("req.json: job: \"parts\" is \"two\""), std::string::npos) << message(other);
  other = child_request_to_json({{}, RepeatPass{1, "r", "j", false}});
  other["job"].erase("journal");
  EXPECT_EQ(message(other), "req.json: job: no \"journal\"");
}

TEST(ChildProtocol, ChildCommandWritesOneRequestFilePerChild) {
  const ScopedTempDir folder("dnnbench-protocol-test");
  const ChildRequest request{{"-g", "a b.json"}, GraphJob{"a b.json", "a b.json", "j.jsonl", 0, ""}};
  const auto first = child_command(request, folder.path(), "/bin/dnnbench");
  const auto second = child_command(request, folder.path(), "/bin/dnnbench");
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0], "/bin/dnnbench");
  EXPECT_EQ(first[1], "_child");
  EXPECT_EQ(first[2], "graph");
  EXPECT_NE(first[3], second[3]);
  const auto read = read_child_request(first[3]);
  EXPECT_EQ(read.run_arguments, request.run_arguments);
  EXPECT_EQ(std::get<GraphJob>(read.job).graph_file, "a b.json");

  { std::ofstream(folder.path() / "cut.json") << R"({"protocol":1,"role":)"; }
  try {
    read_child_request(folder.path() / "cut.json");
    FAIL() << "a cut request was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cut.json: not JSON"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_child_request(folder.path() / "missing.json"), std::invalid_argument);
}

TEST(ChildProtocol, WorkerJobsAndRepliesAreOneLineEach) {
  const auto line = worker_job_line({"f.json", "p.json", "j.jsonl", 0, ""}, 42);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const auto [job, id] = worker_job_from_line(line);
  EXPECT_EQ(id, 42u);
  EXPECT_EQ(job.graph_path, "p.json");
  EXPECT_THROW(worker_job_from_line(R"({"id":1})"), std::invalid_argument);
  EXPECT_THROW(worker_job_from_line("not json"), std::invalid_argument);

  const auto reply = job_done_from_line(job_done_line({7, ""}));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->id, 7u);
  EXPECT_TRUE(reply->retiring.empty());
  EXPECT_EQ(job_done_from_line(job_done_line({8, "device lost"}))->retiring, "device lost");
  EXPECT_FALSE(job_done_from_line("cuDNN says hello"));
  EXPECT_FALSE(job_done_from_line(std::string(kWorkerReadyLine)));  // the ready line is no reply
}

}  // namespace
}  // namespace dnnbench
