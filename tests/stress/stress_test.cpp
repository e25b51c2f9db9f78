// Many host threads launching shared kernels on shared and private streams, with cold and warm
// specialisations mixed: every result is checked, and nothing deadlocks.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include <sched.h>
#include <unistd.h>

#include "01_vector_add/vector_add.hpp"
#include "02_softmax/softmax.hpp"
#include "03_matmul/matmul.hpp"
#include "04_matmul_bias_relu/matmul_bias_relu.hpp"
#include "emulator/Interleave.hpp"
#include "emulator/LaunchCpus.hpp"
#include "pto/runtime/Emulator.hpp"

namespace {

namespace va = pto::samples::vector_add;
namespace sm = pto::samples::softmax;
namespace mbr = pto::samples::matmul_bias_relu;

TEST_CASE("eight_threads_launching_shared_kernels_get_right_results") {
  static const auto add = va::make_kernel<float>({.tile = 1024});
  static const auto soft = sm::make_kernel<float>({});
  pto::Stream shared;
  std::atomic<int> wrong{0}, done{0};
  // 8 threads x 1,000 launches (PTO_STRESS_LAUNCHES overrides the count, e.g. for slower sanitizer builds).
  constexpr int kThreads = 8;
  const int kLaunches = std::getenv("PTO_STRESS_LAUNCHES") ? std::atoi(std::getenv("PTO_STRESS_LAUNCHES")) : 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      pto::Stream own;
      for (int i = 0; i < kLaunches; ++i) {
        const int64_t n = 1000 + 1024 * ((t + i) % 5);  // 5 shapes: cold the first time, warm after
        auto x = pto::Tensor<float>::random({n}, t * 1000 + i), y = pto::Tensor<float>::random({n}, 7);
        auto z = pto::Tensor<float>::zeros({n}), want = pto::Tensor<float>::zeros({n});
        va::reference(x, y, want);
        pto::Stream& s = i % 2 ? own : shared;
        add[{.block_dim = 1 + (i % 6), .stream = &s}](x, y, z);
        s.synchronize();
        if (pto::samples::max_abs_diff(z, want) != 0) ++wrong;
        if (i % 10 == 0) {
          auto a = pto::Tensor<float>::random({16 + t, 128}), b = pto::Tensor<float>::zeros({16 + t, 128});
          auto ref = pto::Tensor<float>::zeros({16 + t, 128});
          sm::reference(a, ref);
          soft[{.block_dim = 2, .stream = &own}](a, b);
          own.synchronize();
          if (pto::samples::max_abs_diff(b, ref) > sm::tolerance<float>()) ++wrong;
        }
        ++done;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(done == kThreads * kLaunches);
  CHECK(wrong == 0);
}

TEST_CASE("four_threads_launching_a_mix_kernel_with_cross_core_moves_get_right_results_and_no_race") {
  // Sample 04 on a5: fibers per block, the AIC writing its AIVs' UB (Acc -> Vec), the race checks
  // within and between blocks, on several host threads at once.
  static const auto k = mbr::make_kernel<float>({.tm = 32, .tn = 32, .tk = 32, .chip = "a5"});
  const int kLaunches = std::getenv("PTO_STRESS_LAUNCHES") ? std::max(1, std::atoi(std::getenv("PTO_STRESS_LAUNCHES")) / 20) : 50;
  std::atomic<int> wrong{0}, raced{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kLaunches; ++i) {
        const int64_t M = 40 + 8 * ((t + i) % 3), N = 48, K = 40;
        auto a = pto::Tensor<float>::random({M, K}, t * 100 + i), b = pto::Tensor<float>::random({K, N}, 3);
        auto bias = pto::Tensor<float>::random({1, N}, 4), y = pto::Tensor<float>::zeros({M, N}), want = pto::Tensor<float>::zeros({M, N});
        auto ws = pto::Tensor<float>::zeros({M, N});
        mbr::reference(a, b, bias, want);
        const auto p = k[{.block_dim = 1 + (i % 3)}].run_sync(a, b, bias, y, ws);  // on this host thread
        if (pto::samples::max_abs_diff(y, want) > pto::samples::matmul::tolerance<float>(want, K)) ++wrong;
        if (!p.races.empty()) ++raced;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(raced == 0);
}

TEST_CASE("four_threads_adding_atomically_into_one_tensor_lose_no_add") {
  // Atomic-add stores (the GM region locks of AtomicAddRows.cpp) from the blocks of one launch and
  // from launches on four host threads at once, into one int32 tensor: every add lands exactly once.
  namespace pl = pto::lang;
  static const auto k = pl::jit({.name = "stress_atomic_add"}, [](pl::Tensor<int32_t> x, pl::Tensor<int32_t> out) {
    auto t = pl::make_tile<int32_t>(pl::Vec, {8, 96});
    pl::load(t, x, {pl::get_block_idx() * 8, 0});
    pl::store(out, t, {0, 0}, {.atomic = pl::AtomicType::AtomicAdd});
  });
  constexpr int kThreads = 4, kBlocks = 6;
  const int kLaunches = std::getenv("PTO_STRESS_LAUNCHES") ? std::max(1, std::atoi(std::getenv("PTO_STRESS_LAUNCHES")) / 10) : 100;
  auto x = pto::Tensor<int32_t>::zeros({kBlocks * 8, 96});
  for (int64_t i = 0; i < x.numel(); ++i) x[i] = static_cast<int32_t>(i % 97) - 40;
  auto out = pto::Tensor<int32_t>::zeros({8, 96});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      pto::Stream own;
      for (int i = 0; i < kLaunches; ++i) k[{.block_dim = kBlocks, .stream = &own}](x, out);
      own.synchronize();
    });
  }
  for (auto& th : threads) th.join();
  int64_t wrong = 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t per_launch = 0;
    for (int b = 0; b < kBlocks; ++b) per_launch += x[b * 8 * 96 + i];
    wrong += out[i] != per_launch * kThreads * kLaunches;
  }
  CHECK(wrong == 0);
}

TEST_CASE("timed_launches_modelled_every_time_on_two_host_threads_give_one_profile") {
  // Every launch's hooks written down and played, its blocks copying blocks that either host
  // thread played before (play folding's twins are the launch's), and replayed: the simulated
  // time, counters and races never depend on which thread played what.
  static const auto add = va::make_kernel<float>({.tile = 512});
  pto::set_replay_cache(false);
  pto::set_host_threads(2);
  const int kLaunches = std::getenv("PTO_STRESS_LAUNCHES") ? std::max(1, std::atoi(std::getenv("PTO_STRESS_LAUNCHES")) / 10) : 100;
  const int64_t n = 8 * 6 * 512;
  auto x = pto::Tensor<float>::random({n}, 1), y = pto::Tensor<float>::random({n}, 2), z = pto::Tensor<float>::zeros({n});
  auto want = pto::Tensor<float>::zeros({n});
  va::reference(x, y, want);
  const pto::LaunchProfile first = add[{.block_dim = 8}].run_sync(x, y, z);
  REQUIRE(pto::samples::max_abs_diff(z, want) == 0);
  int differ = 0;
  for (int i = 1; i < kLaunches; ++i) {
    const pto::LaunchProfile p = add[{.block_dim = 8}].run_sync(x, y, z);
    differ += p.device_us != first.device_us || p.core_us != first.core_us || p.hbm_bytes != first.hbm_bytes ||
              p.instructions != first.instructions || !p.races.empty();
  }
  pto::set_host_threads(0);
  pto::set_replay_cache(true);
  CHECK(differ == 0);
  CHECK(pto::samples::max_abs_diff(z, want) == 0);
}

TEST_CASE("a_failing_launch_on_one_thread_does_not_disturb_the_others") {
  static const auto add = va::make_kernel<float>({.tile = 1024});
  const auto bad = pto::lang::jit({.name = "oob"}, [](pto::lang::Tensor<float> x, pto::lang::Tensor<float> y) {
    auto t = pto::lang::make_tile<float>(pto::lang::Vec, {64});
    pto::lang::load(t, x.slice(pto::lang::get_block_idx() * 64, 64));  // block 1 reads past the end
    pto::lang::store(y.slice(0, 64), t);
  });
  std::atomic<int> errors{0}, good{0};
  std::thread failing([&] {
    pto::Stream s;
    for (int i = 0; i < 50; ++i) {
      auto x = pto::Tensor<float>::random({64}), y = pto::Tensor<float>::zeros({64});
      bad[{.block_dim = 2, .stream = &s}](x, y);
      try {
        s.synchronize();
      } catch (const pto::UserError&) {
        ++errors;
      }
    }
  });
  std::thread working([&] {
    pto::Stream s;
    for (int i = 0; i < 50; ++i) {
      auto x = pto::Tensor<float>::random({5000}), y = pto::Tensor<float>::random({5000}), z = pto::Tensor<float>::zeros({5000});
      auto want = pto::Tensor<float>::zeros({5000});
      va::reference(x, y, want);
      add[{.block_dim = 3, .stream = &s}](x, y, z);
      s.synchronize();
      good += pto::samples::max_abs_diff(z, want) == 0;
    }
  });
  failing.join();
  working.join();
  CHECK(errors == 50);
  CHECK(good == 50);
}

// Interleave's help (emulator/Interleave.hpp), white box: four cores of kTurns turns each (each
// turn but the last ends in a yield), run by one host thread while another calls help() and is
// handed half of them. A core keeps a sum in a local across its turns (on its fiber's stack,
// which may move to the helper) and notes the host thread of each turn.
constexpr int kTurns = 12;
std::array<std::vector<pid_t>, pto::emulator::Interleave::kCoresPerThread> turn_threads;
std::array<int64_t, pto::emulator::Interleave::kCoresPerThread> turn_sums;
void turns_kernel(pto::CoreContext* ctx) {
  const auto core = static_cast<size_t>(ctx->block_idx);
  int64_t sum = 0;
  for (int t = 0; t < kTurns; ++t) {
    sum += (t + 1) * (ctx->block_idx + 1);
    turn_threads[core].push_back(::gettid());  // not std::this_thread::get_id(): pthread_self is
                                               // declared const, so the compiler may keep it across the yield
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (t + 1 < kTurns) ctx->yield(ctx);  // the last turn ends the kernel
  }
  turn_sums[core] = sum;
}

// A stream's worker runs what is queued when nobody synchronises: right after a synchronize()
// (the worker napping), after a pause shorter than its doze-off, and after one past it (asleep:
// enqueue must wake it). And a stream whose host works between launches and synchronises late
// gets each launch run beside that work, on its worker (Stream.hpp: who runs a launch).
TEST_CASE("a_stream_runs_queued_work_without_synchronize_on_its_worker_napping_or_asleep") {
  pto::Stream s;
  const auto caller = std::this_thread::get_id();
  auto run_unsynchronised = [&] {
    std::atomic<bool> done{false};
    std::thread::id ran_on;
    s.enqueue([&] {
      ran_on = std::this_thread::get_id();
      done.store(true, std::memory_order_release);
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    const bool in_time = done.load(std::memory_order_acquire);
    if (!in_time) s.synchronize();  // not left queued past the locals it writes
    REQUIRE(in_time);
    return ran_on;
  };
  s.enqueue([] {});
  s.synchronize();
  for (const int pause_ms : {0, 3, 150}) {
    CAPTURE(pause_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    CHECK(run_unsynchronised() != caller);
  }
  s.synchronize();
  int on_worker = 0;
  for (int i = 0; i < 20; ++i) {
    s.enqueue([&] { on_worker += std::this_thread::get_id() != caller; });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // host work
    s.synchronize();
  }
  CHECK(on_worker >= 15);  // the first may wait for synchronize(); a loaded host may delay a few more
}

TEST_CASE("a_host_thread_out_of_blocks_takes_over_half_of_another_threads_interleaved_cores") {
  pto::CompiledKernel k;
  k.fn.store(&turns_kernel);
  constexpr int kCores = pto::emulator::Interleave::kCoresPerThread;
  for (auto& t : turn_threads) t.clear();
  turn_sums.fill(-1);
  pto::emulator::RunsInFlight in_flight;
  std::atomic<bool> owner_done{false};
  pid_t owner_id = 0;
  std::thread owner([&] {
    owner_id = ::gettid();
    std::array<pto::CoreContext, kCores> ctx{};
    for (int i = 0; i < kCores; ++i) ctx[static_cast<size_t>(i)].block_idx = i;
    pto::emulator::Interleave run(k);
    in_flight.run(run, ctx);
    owner_done.store(true, std::memory_order_release);
  });
  int helped = 0;
  while (!owner_done.load(std::memory_order_acquire)) helped += in_flight.help();
  owner.join();
  CHECK(helped > 0);
  int by_owner = 0, by_helper = 0;
  for (int c = 0; c < kCores; ++c) {
    CAPTURE(c);
    CHECK(turn_sums[static_cast<size_t>(c)] == int64_t{kTurns} * (kTurns + 1) / 2 * (c + 1));
    REQUIRE(turn_threads[static_cast<size_t>(c)].size() == static_cast<size_t>(kTurns));
    for (const auto& id : turn_threads[static_cast<size_t>(c)]) (id == owner_id ? by_owner : by_helper) += 1;
  }
  CHECK(by_owner > 0);
  CHECK(by_helper == helped);
  CHECK(by_owner + by_helper == kCores * kTurns);
}

TEST_CASE("threads_of_a_launch_on_one_cpu_hold_a_cpu_each_and_get_their_affinity_back") {
  cpu_set_t allowed;
  REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  pto::emulator::LaunchCpus cpus;
  {
    const pto::emulator::CpuHold unwanted(cpus, false);
    CHECK(unwanted.cpu() == -1);
  }
  if (CPU_COUNT(&allowed) < 2) {  // a thread that may run on one CPU only is left alone
    const pto::emulator::CpuHold hold(cpus, true);
    CHECK(hold.cpu() == -1);
    return;
  }
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  std::array<int, 2> held{-1, -1}, ran_on{-1, -1};
  std::array<bool, 2> restored{};
  std::barrier both(2);
  auto hold_from_first_cpu = [&](int t) {
    // On the first CPU, as a worker woken onto its waker's, but allowed every CPU again.
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    sched_setaffinity(0, sizeof one, &one);
    sched_setaffinity(0, sizeof allowed, &allowed);
    {
      const pto::emulator::CpuHold hold(cpus, true);
      held[static_cast<size_t>(t)] = hold.cpu();
      ran_on[static_cast<size_t>(t)] = sched_getcpu();
      both.arrive_and_wait();  // both hold theirs at once
    }
    cpu_set_t after;
    sched_getaffinity(0, sizeof after, &after);
    restored[static_cast<size_t>(t)] = CPU_EQUAL(&after, &allowed);
  };
  const uint64_t moved_before = pto::runtime_stats().moved_threads;
  std::thread a(hold_from_first_cpu, 0), b(hold_from_first_cpu, 1);
  a.join();
  b.join();
  for (size_t t = 0; t < 2; ++t) {
    CAPTURE(t);
    CHECK(held[t] >= 0);
    CHECK(CPU_ISSET(held[t], &allowed));
    CHECK(ran_on[t] == held[t]);
    CHECK(restored[t]);
  }
  CHECK(held[0] != held[1]);
  MESSAGE("threads moved off a CPU the other held: ", pto::runtime_stats().moved_threads - moved_before);
}

TEST_CASE("interleaved_cube_launches_whose_cores_move_between_host_threads_get_right_results_and_one_profile") {
  // A matmul whose A (K = 512 columns, rows past the host's last-level cache) makes it interleave
  // its cores, on 12 blocks: three runs of four for two host threads, the one out of blocks
  // taking over half of the other's last run (set_interleave_help), every other launch with
  // each thread holding a CPU of its own (set_host_pinning). C is the same to the bit and the
  // simulated profile the same as with help and pinning off.
  namespace mm = pto::samples::matmul;
  static const auto matmul = mm::make_kernel<float>({.tm = 128, .tn = 16, .tk = 64});
  pto::set_replay_cache(false);
  pto::set_host_threads(2);
  const int64_t K = 512, N = 16, M = pto::host_cache_bytes() / (K * 4) + 128;
  auto a = pto::Tensor<float>::random({M, K}, 1), b = pto::Tensor<float>::random({K, N}, 2);
  auto want = pto::Tensor<float>::zeros({M, N});
  pto::set_interleave_help(false);
  pto::set_host_pinning(false);
  const pto::LaunchProfile alone = matmul[{.block_dim = 12}].run_sync(a, b, want);
  pto::set_interleave_help(true);
  auto ref = pto::Tensor<float>::zeros({M, N});
  mm::reference(a, b, ref);
  REQUIRE(pto::samples::max_abs_diff(want, ref) <= mm::tolerance<float>(ref, K));
  const int kLaunches = std::getenv("PTO_STRESS_LAUNCHES") ? std::max(1, std::atoi(std::getenv("PTO_STRESS_LAUNCHES")) / 200) : 5;
  const auto helped_before = pto::runtime_stats().helped_turns;
  int wrong = 0, differ = 0;
  for (int i = 0; i < kLaunches; ++i) {
    pto::set_host_pinning(i % 2 == 0);
    auto c = pto::Tensor<float>::zeros({M, N});
    const pto::LaunchProfile p = matmul[{.block_dim = 12}].run_sync(a, b, c);
    wrong += pto::samples::max_abs_diff(c, want) != 0;
    differ += p.device_us != alone.device_us || p.core_us != alone.core_us || !p.races.empty();
  }
  pto::set_host_pinning(true);
  pto::set_host_threads(0);
  pto::set_replay_cache(true);
  CHECK(wrong == 0);
  CHECK(differ == 0);
  MESSAGE("turns run by a helping host thread: ", pto::runtime_stats().helped_turns - helped_before);
}

}  // namespace
