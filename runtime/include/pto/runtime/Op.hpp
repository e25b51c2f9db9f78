#pragma once
// The host operator layer, as aclnn does it: a two-phase call
//
//   pto::OpExecutor exec;
//   uint64_t workspace = softmax_op.get_workspace_size(x, y, exec);   // validate, tile, pick the kernel
//   softmax_op.run(exec, stream);                                      // launch
//
// An Op bundles: parameter validation (clear UserErrors before anything runs), a host tiling
// function (shapes and dtypes -> block_dim, TilingKey, a tiling-data struct reflected with Hana and
// passed to the kernel as runtime scalars, workspace bytes), and the dispatch of the kernel, which
// finds its specialisation in the memory cache, the disk cache or an open package.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/hana/members.hpp>

#include "pto/runtime/Kernel.hpp"

namespace pto {

/// What a host tiling function decides for one call.
struct OpPlan {
  int block_dim = 1;
  TilingKey tiling_key;
  std::vector<int64_t> tiling_data;  // the kernel's runtime scalars, in order
  uint64_t workspace_bytes = 0;
};

/// The runtime scalars of a tiling-data struct declared with BOOST_HANA_DEFINE_STRUCT, in field order.
template <class Data>
std::vector<int64_t> flatten_tiling_data(const Data& d) {
  std::vector<int64_t> out;
  boost::hana::for_each(boost::hana::members(d), [&](const auto& field) { out.push_back(static_cast<int64_t>(field)); });
  return out;
}

/// The bound launch between the two phases.
class OpExecutor {
 public:
  bool ready() const { return static_cast<bool>(launch_); }
  const OpPlan& plan() const { return plan_; }

 private:
  template <class...> friend class Op;
  OpPlan plan_;
  std::function<void(Stream&)> launch_;
};

template <class... HostArgs>
class Op {
 public:
  using Validate = std::function<void(const HostArgs&...)>;
  using Tile = std::function<OpPlan(const HostArgs&...)>;
  /// Launches the kernel with the plan on the stream (captures what it needs by value).
  using Dispatch = std::function<void(const OpPlan&, Stream&, const HostArgs&...)>;

  Op(std::string name, Validate validate, Tile tile, Dispatch dispatch)
      : name_(std::move(name)), validate_(std::move(validate)), tile_(std::move(tile)), dispatch_(std::move(dispatch)) {}

  /// Phase 1: validates the arguments, runs the tiling function and binds the launch.
  uint64_t get_workspace_size(const HostArgs&... args, OpExecutor& executor) const {
    validate_(args...);
    executor.plan_ = tile_(args...);
    // Host arguments are handles (tensors share their storage): the executor keeps copies.
    executor.launch_ = [this, plan = executor.plan_, args...](Stream& s) { dispatch_(plan, s, args...); };
    return executor.plan_.workspace_bytes;
  }

  /// Phase 2: launches on `stream` (asynchronous, like any launch).
  void run(OpExecutor& executor, Stream& stream = Stream::default_stream()) const {
    PTO_USER_CHECK(executor.ready(), ErrorSite{.kernel = name_}) << "run() before get_workspace_size() bound the executor";
    executor.launch_(stream);
  }

  /// Both phases.
  void operator()(const HostArgs&... args, Stream& stream = Stream::default_stream()) const {
    validate_(args...);
    dispatch_(tile_(args...), stream, args...);
  }

  const std::string& name() const { return name_; }

 private:
  std::string name_;
  Validate validate_;
  Tile tile_;
  Dispatch dispatch_;
};

}  // namespace pto
