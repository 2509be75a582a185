#include "distribute/distributed_run.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "distribute/distribution.hpp"
#include "distribute/scheduler.hpp"
#include "env/metadata.hpp"
#include "graph/cost.hpp"
#include "providers/registry.hpp"
#include "report/json_read.hpp"
#include "report/json_report.hpp"
#include "run/graph_loader.hpp"
#include "run/journal.hpp"
#include "sys/host_name.hpp"
#include "sys/interrupt.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A worker's heartbeat period: far below any sensible --rank-timeout-s, far above the cost of a
// message.
constexpr auto kHeartbeatPeriod = std::chrono::seconds(1);
// How long rank 0's scheduler waits for a message before looking at the clock and the stop flag.
constexpr double kPollSeconds = 0.005;

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::optional<std::string>(value) : std::nullopt;
}

std::string inputs_digest(const std::vector<GraphInput>& inputs) {
  std::string all;
  for (const auto& input : inputs) all += input.path + '\n';
  return content_hash(all);
}

// Where a worker's messages go: rank 0 over the transport, or rank 0's own scheduler thread.
class WorkerLink {
 public:
  virtual ~WorkerLink() = default;
  virtual void send(const json& message) = 0;
  // The scheduler's next word to this worker; nullopt when a stop was requested while waiting.
  virtual std::optional<json> receive() = 0;
};

class RemoteLink final : public WorkerLink {
 public:
  explicit RemoteLink(Transport& transport) : transport_(transport) {}
  void send(const json& message) override { transport_.send(0, message.dump()); }
  std::optional<json> receive() override {
    while (!stop_requested())
      if (auto m = transport_.receive(0.05)) return json::parse(m->text);
    return std::nullopt;
  }

 private:
  Transport& transport_;
};

// Rank 0's worker (main thread) and scheduler (second thread) talk through two queues.
class LocalChannel {
 public:
  void to_scheduler(json message) {
    std::lock_guard lock(mutex_);
    up_.push_back(std::move(message));
  }
  std::optional<json> take_for_scheduler() {
    std::lock_guard lock(mutex_);
    if (up_.empty()) return std::nullopt;
    auto m = std::move(up_.front());
    up_.pop_front();
    return m;
  }
  void to_worker(json message) {
    {
      std::lock_guard lock(mutex_);
      down_.push_back(std::move(message));
    }
    ready_.notify_one();
  }
  std::optional<json> take_for_worker(std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    ready_.wait_for(lock, wait, [&] { return !down_.empty(); });
    if (down_.empty()) return std::nullopt;
    auto m = std::move(down_.front());
    down_.pop_front();
    return m;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<json> up_, down_;
};

class LocalLink final : public WorkerLink {
 public:
  explicit LocalLink(LocalChannel& channel) : channel_(channel) {}
  void send(const json& message) override { channel_.to_scheduler(message); }
  std::optional<json> receive() override {
    // Rank 0's scheduler lives as long as this process: wait for it, but not past a stop.
    while (!stop_requested())
      if (auto m = channel_.take_for_worker(std::chrono::milliseconds(50))) return m;
    return std::nullopt;
  }

 private:
  LocalChannel& channel_;
};

// Stamps the rows a worker runs with its rank and host, then passes them to its journal and to
// rank 0. Rows reused from an earlier attempt keep their own stamp.
class WorkerObserver final : public RunObserver {
 public:
  WorkerObserver(WorkerLink& link, JournalWriter* journal, MeasuredBy me, std::size_t index)
      : link_(link), journal_(journal), me_(std::move(me)), index_(index) {}
  void row_started(const GraphResult& graph, std::string_view provider, const EngineInfo& engine) override {
    if (journal_) journal_->row_started(graph, provider, engine);
    link_.send({{"type", "row_started"},
                {"index", index_},
                {"provider", provider},
                {"engine_id", engine.id},
                {"engine_name", engine.name}});
  }
  void row_finished(const GraphResult& graph, const RowResult& row) override {
    auto stamped = row;
    if (!stamped.measured_by) stamped.measured_by = me_;
    if (journal_) journal_->row_finished(graph, stamped);
    link_.send({{"type", "row"},
                {"index", index_},
                {"row", row_to_json(stamped)},
                {"best_plan", plan_ref_to_json(stamped.best_plan)}});
  }
  void stamp(GraphResult& graph) const {
    for (auto& row : graph.results)
      if (!row.measured_by) row.measured_by = me_;
  }

 private:
  WorkerLink& link_;
  JournalWriter* journal_;
  MeasuredBy me_;
  std::size_t index_;
};

// Runs the graphs rank 0 hands out until it says there are none left. Returns false when it was
// stopped (a signal) or lost rank 0.
bool work(WorkerLink& link, const DistributedRequest& request, const MeasuredBy& me, JournalWriter* journal) {
  const auto& options = *request.options;
  std::unique_ptr<GraphExecutor> executor;
  if (request.isolation != IsolationMode::none)
    executor = make_isolated_executor(request.isolation, request.timeout_s, request.run_arguments);
  else
    executor = make_in_process_executor(options);
  for (;;) {
    link.send({{"type", "ready"}});
    // Rank 0 answers at once, or (nothing to hand out yet) when a graph comes free or the run ends.
    const auto answer = link.receive();
    if (!answer) return false;
    if (answer->at("type") == "done") return true;
    const auto index = answer->at("index").get<std::size_t>();
    FinishedRows finished;
    for (const auto& r : answer->at("rows")) {
      auto row = row_from_json(r.at("row"));
      row.best_plan = plan_ref_from_json(r.at("best_plan"));
      finished.add(std::move(row));
    }
    const auto& input = request.inputs.at(index);
    GraphLoader loader(options);  // one graph alone: duplicates were found by rank 0
    GraphResult result;
    const auto graph = loader.load(input, result);
    WorkerObserver observer(link, journal, me, index);
    if (graph && !executor->run(input, *graph, result, finished, observer)) {
      link.send({{"type", "stopped"}, {"index", index}});
      return false;
    }
    observer.stamp(result);
    if (journal) journal->graph_finished(result);
    link.send({{"type", "graph"}, {"index", index}, {"graph", graph_to_json(result)}});
  }
}

// Folds `from` into `into`: finished graphs and rows that `into` lacks.
void merge_journal(Journal& into, const Journal& from) {
  for (const auto& [key, graph] : from.graphs) {
    auto& target = into.graphs[key];
    if (!target.finished && graph.finished) target.finished = graph.finished;
    for (const auto& row_key : graph.row_order) {
      if (target.rows.find_key(row_key)) continue;
      target.rows.add(*graph.rows.find_key(row_key));
      target.row_order.push_back(row_key);
    }
  }
  into.rows += from.rows;
}

// --resume of an MPI run: <journal> and every <journal>.rank<R>.jsonl this rank can see.
std::optional<Journal> read_resume_journals(const std::string& journal, const json& fingerprint,
                                            std::vector<std::string>& problems) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::exists(journal, ec)) files.emplace_back(journal);
  const auto folder = fs::path(journal).has_parent_path() ? fs::path(journal).parent_path() : fs::path(".");
  const auto prefix = fs::path(journal).filename().string() + ".rank";
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) files.push_back(entry.path());
  if (files.empty()) return std::nullopt;
  Journal all;
  all.options = fingerprint;
  for (const auto& file : files) {
    try {
      const auto one = read_journal(file);
      const auto differences = fingerprint_differences(one.options, fingerprint);
      if (!differences.empty()) {
        problems.push_back(fmt::format("--resume: the options differ from those of the journal {} ({})",
                                       file.string(), fmt::join(differences, "; ")));
        continue;
      }
      merge_journal(all, one);
    } catch (const std::exception& e) {
      problems.push_back(fmt::format("--resume: {}", e.what()));
    }
  }
  return all;
}

// What rank 0 knows of one graph of the suite.
struct GraphSlot {
  GraphResult loaded;  // from rank 0's loader: name, path, hash, status, cost
  bool runnable = false;
  double cost = 0;
  FinishedRows rows;  // finished by any rank (or an earlier run)
  std::vector<std::string> row_order;
  std::optional<StartedRow> unfinished;
  std::optional<int> unfinished_rank;
  std::optional<GraphResult> final;
  std::vector<std::string> deaths;  // "rank 2 (host)" per rank that died running it
};

class Scheduler {
 public:
  Scheduler(Transport& transport, LocalChannel& local, const DistributedRequest& request,
            std::vector<GraphSlot>& slots, const std::vector<RankInfo>& ranks, JournalWriter* journal,
            std::function<void()> on_stop)
      : on_stop_(std::move(on_stop)),
        transport_(transport),
        local_(local),
        request_(request),
        slots_(slots),
        ranks_(ranks),
        journal_(journal),
        plan_(costs(slots), runnable(slots)) {
    for (int r = 0; r < transport.size(); ++r) last_heard_[r] = Clock::now();
  }

  // Runs until every graph is done (or a stop); then tells every live rank so.
  void run() {
    const auto timeout = std::chrono::duration<double>(request_.rank_timeout_s);
    while (!stop_requested() && !finished()) {
      while (auto m = local_.take_for_scheduler()) handle(0, *m);
      if (auto m = transport_.receive(kPollSeconds)) {
        auto message = json::parse(m->text, nullptr, /*allow_exceptions=*/false);
        if (!message.is_discarded()) handle(m->from, message);
      }
      const auto now = Clock::now();
      for (int r = 1; r < transport_.size(); ++r)
        if (plan_.rank_alive(r) && now - last_heard_[r] > timeout) lose(r);
    }
    for (int r : std::set<int>(idle_)) tell_done(r);
    stopped_ = stop_requested();
    // mpirun kills the ranks about a second after its SIGTERM: write now, not after the row in
    // flight on rank 0's main thread.
    if (stopped_ && on_stop_) on_stop_();
  }

  bool stopped() const { return stopped_; }
  const std::vector<int>& lost_ranks() const { return lost_; }

 private:
  static std::vector<double> costs(const std::vector<GraphSlot>& slots) {
    std::vector<double> c;
    for (const auto& s : slots) c.push_back(s.cost);
    return c;
  }
  static std::vector<bool> runnable(const std::vector<GraphSlot>& slots) {
    std::vector<bool> r;
    for (const auto& s : slots) r.push_back(s.runnable && !s.final);
    return r;
  }

  bool finished() const {
    if (!plan_.done()) return false;
    // Every live rank asked for work and was told (or will be) that there is none.
    for (int r = 0; r < transport_.size(); ++r)
      if (plan_.rank_alive(r) && !idle_.count(r) && !done_.count(r)) return false;
    return true;
  }

  void send(int rank, const json& message) {
    if (rank == 0)
      local_.to_worker(message);
    else
      transport_.send(rank, message.dump());
  }

  void tell_done(int rank) {
    if (done_.count(rank) || !plan_.rank_alive(rank)) return;
    send(rank, {{"type", "done"}});
    done_.insert(rank);
    idle_.erase(rank);
  }

  MeasuredBy who(int rank) const {
    return {rank, rank < static_cast<int>(ranks_.size()) ? ranks_[static_cast<std::size_t>(rank)].host : ""};
  }

  void hand_out(int rank) {
    const auto index = plan_.next(rank);
    if (!index) {
      if (plan_.done())
        tell_done(rank);
      else
        idle_.insert(rank);  // a graph in flight elsewhere may come back (its rank dies)
      return;
    }
    idle_.erase(rank);
    auto& slot = slots_[*index];
    json rows = json::array();
    for (const auto& key : slot.row_order) {
      const auto& row = *slot.rows.find_key(key);
      rows.push_back({{"row", row_to_json(row)}, {"best_plan", plan_ref_to_json(row.best_plan)}});
    }
    send(rank, {{"type", "graph"}, {"index", *index}, {"rows", rows}});
  }

  void handle(int from, const json& m) {
    last_heard_[from] = Clock::now();
    const auto type = m.at("type").get<std::string>();
    if (!plan_.rank_alive(from)) {  // taken for dead: its graph went elsewhere
      if (type == "ready") send(from, {{"type", "done"}});
      return;
    }
    if (type == "heartbeat") return;
    if (type == "ready") return hand_out(from);
    const auto index = m.at("index").get<std::size_t>();
    auto& slot = slots_.at(index);
    if (type == "row_started") {
      slot.unfinished = StartedRow{m.at("provider").get<std::string>(), m.at("engine_id").get<std::string>(),
                                   m.at("engine_name").get<std::string>()};
      slot.unfinished_rank = from;
    } else if (type == "row") {
      auto row = row_from_json(m.at("row"));
      row.best_plan = plan_ref_from_json(m.at("best_plan"));
      const auto key = FinishedRows::key(row.provider, row.engine_id);
      if (!slot.rows.find_key(key)) slot.row_order.push_back(key);
      if (journal_) journal_->row_finished(slot.loaded, row);
      if (request_.observer) request_.observer->row_finished(slot.loaded, row);
      slot.rows.add(std::move(row));
      slot.unfinished.reset();
    } else if (type == "graph") {
      auto result = graph_from_json(m.at("graph"));
      result.content_hash = slot.loaded.content_hash;
      complete(index, std::move(result));
      plan_.finished(from);
    } else if (type == "stopped") {
      plan_.finished(from);
    }
  }

  void complete(std::size_t index, GraphResult result) {
    auto& slot = slots_[index];
    if (journal_) journal_->graph_finished(result);
    slot.final = std::move(result);
    slot.unfinished.reset();
    if (request_.observer) request_.observer->graph_finished(*slot.final);
  }

  void lose(int rank) {
    const auto lost = plan_.rank_lost(rank);
    lost_.push_back(rank);
    idle_.erase(rank);
    const auto name = fmt::format("rank {} ({})", rank, who(rank).host);
    fmt::print(
        std::cerr, "dnnbench: {} is silent for {} s: taken for dead{}\n", name, request_.rank_timeout_s,
        lost.graph ? fmt::format("; its graph {} {}", slots_[*lost.graph].loaded.graph_path,
                                 lost.retried ? "goes to another rank" : "is given up (it was a retry)")
                   : "");
    if (!lost.graph) return;
    auto& slot = slots_[*lost.graph];
    slot.deaths.push_back(name);
    if (lost.retried) {
      slot.unfinished.reset();
      for (int r : std::set<int>(idle_)) {  // a rank waiting for work takes it now
        hand_out(r);
        if (!idle_.count(r)) break;
      }
      return;
    }
    // Given up: the rows finished so far, and the row in flight as an error.
    GraphResult result = slot.loaded;
    for (const auto& key : slot.row_order) result.results.push_back(*slot.rows.find_key(key));
    const auto message =
        fmt::format("{} died running this graph: not retried again (it had died on {} before)", name,
                    fmt::join(slot.deaths.begin(), slot.deaths.end() - 1, ", "));
    if (slot.unfinished) {
      RowResult row;
      row.provider = slot.unfinished->provider;
      row.engine_id = slot.unfinished->engine_id;
      row.engine_name = slot.unfinished->engine_name;
      row.status = RowStatus::error;
      row.error_message = fmt::format("{} died in this row; {}", name, message);
      row.analytical_flops = slot.loaded.analytical_flops;
      row.analytical_io_bytes = slot.loaded.analytical_io_bytes;
      row.measured_by = who(rank);
      result.results.push_back(row);
      if (journal_) journal_->row_finished(slot.loaded, row);
    }
    result.error_message = fmt::format("graph {}: {}", result.graph_name, message);
    if (!slot.unfinished) result.ok = false;
    complete(*lost.graph, std::move(result));
  }

  std::function<void()> on_stop_;
  Transport& transport_;
  LocalChannel& local_;
  const DistributedRequest& request_;
  std::vector<GraphSlot>& slots_;
  const std::vector<RankInfo>& ranks_;
  JournalWriter* journal_;
  GraphScheduler plan_;
  std::map<int, Clock::time_point> last_heard_;
  std::set<int> idle_, done_;
  std::vector<int> lost_;
  bool stopped_ = false;
};

// The merged results from rank 0's slots: every graph in input order, finished or (after a stop)
// with the rows it has.
SuiteResult assemble(const std::vector<GraphSlot>& slots, bool complete) {
  SuiteResult suite;
  suite.complete = complete;
  for (const auto& slot : slots) {
    if (slot.final) {
      suite.graphs.push_back(*slot.final);
    } else if (!slot.runnable) {
      suite.graphs.push_back(slot.loaded);
    } else if (!slot.rows.all().empty()) {
      auto partial = slot.loaded;
      for (const auto& key : slot.row_order) partial.results.push_back(*slot.rows.find_key(key));
      suite.graphs.push_back(std::move(partial));
      suite.complete = false;
    } else {
      suite.complete = false;
    }
  }
  return suite;
}

// Rank 0 loads every graph: loader verdicts (duplicates over the whole suite), costs.
std::vector<GraphSlot> load_slots(const DistributedRequest& request, const Journal* resume) {
  const auto& options = *request.options;
  std::vector<GraphSlot> slots(request.inputs.size());
  GraphLoader loader(options);
  std::vector<std::unique_ptr<Provider>> providers;
  auto names = options.providers.empty() ? default_provider_names() : options.providers;
  for (const auto& name : names) {
    try {
      if (auto p = make_provider(name, options.provider_settings)) providers.push_back(std::move(p));
    } catch (const std::exception&) {  // its rows will say why, on whichever rank runs them
    }
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    auto& slot = slots[i];
    const auto graph = loader.load(request.inputs[i], slot.loaded);
    if (!graph || options.dry_run) continue;
    slot.runnable = true;
    const auto cost = graph_cost(*graph);
    slot.loaded.analytical_flops = cost.flops;
    slot.loaded.analytical_io_bytes = cost.min_bytes;
    std::size_t engines = 0;
    for (auto& p : providers) {
      try {
        engines += p->engines(*graph).size();
      } catch (const std::exception&) {
        engines += 1;  // a skipped or error row: cheap
      }
    }
    slot.cost = estimated_cost(cost, engines);
    const auto* earlier = resume ? resume->find(slot.loaded.graph_path, slot.loaded.content_hash) : nullptr;
    if (!earlier) continue;
    if (earlier->finished) {
      slot.final = *earlier->finished;
      continue;
    }
    for (const auto& key : earlier->row_order) {
      slot.rows.add(*earlier->rows.find_key(key));
      slot.row_order.push_back(key);
    }
  }
  return slots;
}

}  // namespace

std::string rank_journal_path(const std::string& journal, int rank) {
  return fmt::format("{}.rank{}.jsonl", journal, rank);
}

DistributedOutcome run_distributed(Transport& transport, const DistributedRequest& request) {
  const auto& options = *request.options;
  const int rank = transport.rank();
  DistributedOutcome outcome;
  outcome.root = rank == 0;

  // The GPU first: CUDA reads CUDA_VISIBLE_DEVICES once, when the first library starts.
  DeviceRequest device_request{transport.local_rank(), transport.local_size(), env("CUDA_VISIBLE_DEVICES"),
                               host_gpu_count(),       env("DNNBENCH_DEVICE"), request.allow_shared_device};
  const auto device = choose_device(device_request);
  if (device.visible_devices) setenv("CUDA_VISIBLE_DEVICES", device.visible_devices->c_str(), 1);

  RankInfo me;
  me.rank = rank;
  me.host = this_host_name();
  me.pid = static_cast<long>(getpid());
  me.device_choice = device.description;
  me.providers = describe_providers(options);
  me.fingerprint = options_fingerprint(options);
  me.inputs_digest = inputs_digest(request.inputs);
  json hello = me.to_json();
  hello["error"] = device.error;

  // Start: every rank reports to rank 0, which says go or stop.
  if (rank != 0) {
    transport.send(0, hello.dump());
    RemoteLink link(transport);
    const auto verdict = link.receive();
    if (!verdict) return outcome;
    if (!verdict->at("go").get<bool>()) {
      outcome.exit_code = 2;
      return outcome;
    }
    std::unique_ptr<JournalWriter> journal;
    if (!request.journal.empty())
      journal = std::make_unique<JournalWriter>(rank_journal_path(request.journal, rank), me.fingerprint,
                                                request.resume);
    std::atomic<bool> working{true};
    std::thread heartbeat([&] {
      try {
        while (working) {
          transport.send(0, json{{"type", "heartbeat"}}.dump());
          for (int i = 0; i < 10 && working; ++i) std::this_thread::sleep_for(kHeartbeatPeriod / 10);
        }
      } catch (const std::exception&) {  // rank 0 is gone: the main thread finds out too
      }
    });
    bool done = false;
    try {
      done = work(link, request, {rank, me.host}, journal.get());
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: rank {}: {}\n", rank, e.what());
    }
    working = false;
    heartbeat.join();
    outcome.exit_code = done ? 0 : (stop_signal() ? 128 + stop_signal() : 1);
    return outcome;
  }

  std::vector<RankInfo> ranks{me};
  std::vector<std::string> problems;
  if (!device.error.empty()) problems.push_back(fmt::format("rank 0 ({}): {}", me.host, device.error));
  for (int received = 1; received < transport.size();) {
    const auto m = transport.receive(1.0);
    if (!m) {
      if (stop_requested()) return outcome;
      continue;
    }
    const auto j = json::parse(m->text);
    if (!j.contains("rank")) continue;  // an early heartbeat cannot come: ranks wait for the verdict
    ranks.push_back(RankInfo::from_json(j));
    if (const auto error = j.value("error", std::string()); !error.empty())
      problems.push_back(fmt::format("rank {} ({}): {}", m->from, ranks.back().host, error));
    ++received;
  }
  std::sort(ranks.begin(), ranks.end(), [](const RankInfo& a, const RankInfo& b) { return a.rank < b.rank; });
  for (auto& c : rank_conflicts(ranks, request.allow_mixed, request.allow_shared_device))
    problems.push_back(std::move(c));
  if (request.resume && request.journal.empty())
    problems.push_back("--resume needs a journal: give --journal FILE or -o FILE");
  std::optional<Journal> resume;
  if (request.resume && !request.journal.empty())
    resume = read_resume_journals(request.journal, me.fingerprint, problems);
  const bool go = problems.empty();
  for (int r = 1; r < transport.size(); ++r) transport.send(r, json{{"go", go}}.dump());
  if (!go) {
    outcome.exit_code = 2;
    outcome.message =
        fmt::format("the ranks of this MPI run cannot run together:\n  {}{}", fmt::join(problems, "\n  "),
                    request.allow_mixed ? "" : "\n(--allow-mixed-ranks accepts differing versions)");
    return outcome;
  }
  if (!resume && !request.journal.empty()) {
    // A fresh run: journals of an earlier, larger run would mislead a later --resume.
    for (int r = transport.size(); r < transport.size() + 1024; ++r) {
      std::error_code ec;
      if (!std::filesystem::remove(rank_journal_path(request.journal, r), ec)) break;
    }
  }
  std::unique_ptr<JournalWriter> merged_journal, own_journal;
  if (!request.journal.empty()) {
    merged_journal = std::make_unique<JournalWriter>(request.journal, me.fingerprint, request.resume);
    own_journal = std::make_unique<JournalWriter>(rank_journal_path(request.journal, 0), me.fingerprint,
                                                  request.resume);
  }
  auto slots = load_slots(request, resume ? &*resume : nullptr);
  fmt::print(std::cerr, "dnnbench: MPI run: {} ranks, {} graph inputs\n", transport.size(), slots.size());
  for (const auto& r : ranks)
    fmt::print(std::cerr, "dnnbench:   rank {} on {} (pid {}): {}\n", r.rank, r.host, r.pid, r.device_choice);
  if (!env("OMPI_MCA_orte_enable_recovery") && transport.size() > 1)
    fmt::print(std::cerr,
               "dnnbench: warning: mpirun was started without --enable-recovery: if a rank dies, Open MPI "
               "ends the whole job (finished rows stay in the journals; --resume goes on from them)\n");

  LocalChannel local;
  std::unique_ptr<Scheduler> scheduler;
  auto results = [&](json metadata) {
    auto suite = assemble(slots, !scheduler->stopped());
    json rank_list = json::array();
    for (const auto& r : ranks) {
      auto entry = r.to_json();
      entry.erase("fingerprint");
      entry.erase("inputs_digest");
      const auto& lost = scheduler->lost_ranks();
      entry["lost"] = std::find(lost.begin(), lost.end(), r.rank) != lost.end();
      rank_list.push_back(entry);
    }
    metadata["mpi"] = {{"ranks", rank_list},
                       {"size", transport.size()},
                       {"rank_timeout_s", request.rank_timeout_s},
                       {"allow_mixed_ranks", request.allow_mixed},
                       {"allow_shared_device", request.allow_shared_device}};
    suite.metadata = std::move(metadata);
    return suite;
  };
  // Read now, for results written at a stop: metadata reads the providers, too slow then.
  const json early_metadata = request.metadata ? request.metadata() : json::object();
  const auto write_at_stop = [&] {
    if (request.output.empty()) return;
    try {
      write_json_file(request.output, suite_to_json(results(early_metadata)));
      fmt::print(std::cerr, "dnnbench: stopped: partial results written to {}\n", request.output);
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    }
  };
  scheduler = std::make_unique<Scheduler>(transport, local, request, slots, ranks, merged_journal.get(),
                                          write_at_stop);
  std::thread scheduling([&] { scheduler->run(); });
  LocalLink link(local);
  work(link, request, {0, me.host}, own_journal.get());
  scheduling.join();

  outcome.suite = results(request.metadata ? request.metadata() : json::object());
  outcome.exit_code = exit_code_for(outcome.suite);
  if (scheduler->stopped() && stop_signal() != 0) outcome.exit_code = 128 + stop_signal();
  return outcome;
}

}  // namespace dnnbench

namespace dnnbench {

int launcher_world_size() {
  // Open MPI's mpirun, then PMI-based launchers (MPICH's hydra, srun --mpi=pmi2).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* value = std::getenv(name)) {
      try {
        return std::max(1, std::stoi(value));
      } catch (const std::exception&) {
      }
    }
  return 1;
}

}  // namespace dnnbench
