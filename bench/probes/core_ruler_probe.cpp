// Which cheap ruler tracks the VM states that slow one- and two-thread oneDNN rows 1.4-1.9x?
// Alternates, for DURATION s: a oneDNN eltwise log (4096 f32) and a matmul (64x64x64 f32), each
// timed for 5 ms (median execution), then candidate rulers on THREADS threads (an OpenMP team, or
// the calling thread): a dependent FMA chain (latency-bound), an integer loop of six independent
// add/xor chains (throughput-bound; the one sys/core_ruler.cpp keeps), per thread; a 64 KiB sum; and
// pointer chases over 512 KiB, 8 MiB and 128 MiB. One CSV line per cycle.
//   g++ -O2 -mavx2 -mfma -std=c++20 -fopenmp bench/probes/core_ruler_probe.cpp -o /tmp/crp -ldnnl
//   OMP_NUM_THREADS=1 taskset -c 0 /tmp/crp 90 1 > one.csv;  OMP_NUM_THREADS=2 /tmp/crp 60 2 > two.csv
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <numeric>
#include <random>
#include <vector>

using clk = std::chrono::steady_clock;
static double us_between(clk::time_point a, clk::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
template <class F>
static double median_us(F f, double ms) {
  std::vector<double> v;
  const auto end = clk::now() + std::chrono::microseconds(static_cast<long>(ms * 1000));
  while (clk::now() < end) {
    const auto t0 = clk::now();
    f();
    v.push_back(us_between(t0, clk::now()));
  }
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}
struct Chase {
  std::vector<size_t> next;
  size_t p = 0;
  explicit Chase(size_t bytes) {
    const size_t n = bytes / 64;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin() + 1, order.end(), std::mt19937(1));
    next.assign(n * 8, 0);
    for (size_t i = 0; i < n; ++i) next[order[i] * 8] = order[(i + 1) % n] * 8;
  }
  void run(int steps) {
    for (int i = 0; i < steps; ++i) p = next[p];
  }
};
static volatile double sink;
static void fma_chain() {
  double x = sink;
  for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}
static void int_throughput() {
  unsigned a = 1, b = 2, c = 3, d = 4, e = 5, f = 6;
  for (unsigned i = 0; i < 2000; ++i) {
    a += i, b ^= a, c += b, d ^= i, e += d, f ^= e;
    asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f));
  }
}
int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 60;
  const int threads = argc > 2 ? atoi(argv[2]) : 1;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  dnnl::memory::desc md({4096}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  dnnl::memory src(md, eng), dst(md, eng);
  for (int i = 0; i < 4096; ++i) static_cast<float*>(src.get_data_handle())[i] = 1 + i % 7;
  dnnl::eltwise_forward log_p(dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_log, md),
      eng));
  dnnl::memory::desc sq({64, 64}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab);
  dnnl::memory ma(sq, eng), mb(sq, eng), mc(sq, eng);
  dnnl::matmul mm(dnnl::matmul::primitive_desc(dnnl::matmul::desc(sq, sq, sq), eng));
  Chase l2(512 << 10), l3(8 << 20), dram(128 << 20);
  std::vector<float> buf(16384, 1.f);
  std::printf(
      "t,log_us,matmul_us,fma_chain_us,int_tp_max_us,int_tp_t0_us,int_tp_t1_us,sum64k_us,chase_l2_ns,chase_"
      "l3_ns,chase_dram_ns\n");
  const auto start = clk::now();
  while (us_between(start, clk::now()) < seconds * 1e6) {
    const double lg = median_us([&] { log_p.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}); }, 5);
    const double m = median_us(
        [&] {
          mm.execute(s, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
        },
        5);
    const double fma = median_us(fma_chain, 3);
    double per_thread[2] = {0, 0};
#pragma omp parallel num_threads(threads)
    per_thread[omp_get_thread_num() % 2] = median_us(int_throughput, 3);
    const double sum = median_us([&] { sink = std::accumulate(buf.begin(), buf.end(), 0.f); }, 3);
    const double c2 = median_us([&] { l2.run(1000); }, 3), c3 = median_us([&] { l3.run(1000); }, 3),
                 cd = median_us([&] { dram.run(1000); }, 5);
    std::printf("%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f,%.2f,%.2f\n",
                us_between(start, clk::now()) / 1e6, lg, m, fma, std::max(per_thread[0], per_thread[1]),
                per_thread[0], per_thread[1], sum, c2, c3, cd);
    std::fflush(stdout);
  }
}
