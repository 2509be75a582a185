// Which host probe tracks the VM states that move two-thread oneDNN rows 1.4-1.7x? Alternates,
// for DURATION s: a oneDNN matmul (32x48x24 f32) and a layer norm (4x6x16), each timed for 5 ms
// (median execution), a per-core ALU loop on cpu0 and cpu1 (pinned), a fork-join of two threads
// of our own and the OpenMP runtime's own fork-join. One CSV line per cycle.
//   g++ -O2 -std=c++20 -fopenmp bench/probes/host_state_probe.cpp -o /tmp/hsp -ldnnl && /tmp/hsp 75
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <dnnl.hpp>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
static double us(clk::time_point a, clk::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
static double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}
static double alu_loop() {  // dependent multiply-add chain, ~40 us
  volatile double seed = 1.0;
  double x = seed;
  auto t0 = clk::now();
  for (int i = 0; i < 25000; ++i) x = x * 1.0000001 + 1e-9;
  auto t1 = clk::now();
  seed = x;
  return us(t0, t1);
}
static double core_alu(int cpu) {
  double r = 0;
  std::thread t([&] {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    std::vector<double> v;
    for (int k = 0; k < 5; ++k) v.push_back(alu_loop());
    r = *std::min_element(v.begin(), v.end());
  });
  t.join();
  return r;
}
int main(int argc, char** argv) {
  double duration = argc > 1 ? atof(argv[1]) : 60;
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  memory::desc a({32, 48}, memory::data_type::f32, memory::format_tag::ab),
      b({48, 24}, memory::data_type::f32, memory::format_tag::ab),
      c({32, 24}, memory::data_type::f32, memory::format_tag::ab);
  matmul mm(matmul::primitive_desc(matmul::desc(a, b, c), eng));
  memory ma(a, eng), mb(b, eng), mc(c, eng);
  memory::desc x({4, 6, 16}, memory::data_type::f32, memory::format_tag::abc);
  layer_normalization_forward ln(layer_normalization_forward::primitive_desc(
      layer_normalization_forward::desc(prop_kind::forward_inference, x, 1e-5f, normalization_flags::none),
      eng));
  memory mx(x, eng), my(x, eng);
  auto time_prim = [&](auto&& run) {
    std::vector<double> v;
    auto end = clk::now() + std::chrono::milliseconds(5);
    while (clk::now() < end) {
      auto t0 = clk::now();
      run();
      s.wait();
      v.push_back(us(t0, clk::now()));
    }
    return median(v);
  };
  std::atomic<int> gen{0}, arrived{0};
  std::atomic<bool> stop{false};
  auto fork_join = [&] {
    stop = false;
    gen = 0;
    std::thread worker([&] {
      int seen = 0;
      while (!stop) {
        int g = gen.load();
        if (g != seen) {
          seen = g;
          arrived.fetch_add(1);
        }
      }
    });
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::vector<double> v;
    for (int r = 0; r < 300; ++r) {
      auto t0 = clk::now();
      arrived = 0;
      gen++;
      while (arrived.load() == 0) {
      }
      v.push_back(us(t0, clk::now()));
    }
    stop = true;
    worker.join();
    return median(v);
  };
  // The OpenMP runtime's own fork-join (the team oneDNN's primitives run on).
  auto omp_fork_join = [&] {
    std::vector<double> v;
    for (int r = 0; r < 300; ++r) {
      auto t0 = clk::now();
#pragma omp parallel num_threads(2)
      {
        volatile double y = 1;
        for (int i = 0; i < 32; ++i) y = y * 1.0000001;
      }
      v.push_back(us(t0, clk::now()));
    }
    return median(v);
  };
  auto start = clk::now();
  printf("t_s,matmul_us,lnorm_us,alu0_us,alu1_us,forkjoin_us,omp_us\n");
  while (us(start, clk::now()) < duration * 1e6) {
    double m = time_prim([&] {
      mm.execute(s, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
    });
    double l = time_prim([&] { ln.execute(s, {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my}}); });
    double fj = fork_join();
    double om = omp_fork_join();
    double a0 = core_alu(0), a1 = core_alu(1);
    printf("%.3f,%.3f,%.3f,%.2f,%.2f,%.3f,%.3f\n", us(start, clk::now()) / 1e6, m, l, a0, a1, fj, om);
    fflush(stdout);
  }
}
