#include "LaunchCpus.hpp"

#include <algorithm>
#include <atomic>

namespace pto::emulator {
namespace {

std::atomic<uint64_t> moved_threads{0};

}  // namespace

uint64_t LaunchCpus::moved() { return moved_threads.load(std::memory_order_relaxed); }

int LaunchCpus::take(int current, const cpu_set_t& allowed) {
  const std::lock_guard lock(mutex_);
  const auto free = [&](int cpu) { return CPU_ISSET(cpu, &allowed) && std::find(held_.begin(), held_.end(), cpu) == held_.end(); };
  int cpu = current >= 0 && current < CPU_SETSIZE && free(current) ? current : -1;
  for (int c = 0; cpu < 0 && c < CPU_SETSIZE; ++c) cpu = free(c) ? c : -1;
  if (cpu < 0) return -1;
  held_.push_back(cpu);
  return cpu;
}

void LaunchCpus::give_back(int cpu) {
  const std::lock_guard lock(mutex_);
  std::erase(held_, cpu);
}

CpuHold::CpuHold(LaunchCpus& cpus, bool wanted) : cpus_(cpus) {
  if (!wanted || sched_getaffinity(0, sizeof allowed_, &allowed_) != 0 || CPU_COUNT(&allowed_) < 2) return;
  const int current = sched_getcpu();
  const int cpu = cpus_.take(current, allowed_);
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) {
    cpus_.give_back(cpu);
    return;
  }
  cpu_ = cpu;
  if (cpu != current) moved_threads.fetch_add(1, std::memory_order_relaxed);
}

CpuHold::~CpuHold() {
  if (cpu_ < 0) return;
  sched_setaffinity(0, sizeof allowed_, &allowed_);
  cpus_.give_back(cpu_);
}

}  // namespace pto::emulator
