// make_spec_key: the compile cache key of a specialisation.
#include <doctest/doctest.h>

#include <pto/pto.hpp>

using pto::DType;

namespace {

struct Inputs {
  uint64_t uid = 7;
  int opt_level = 2;
  bool auto_mutex = false;
  bool timing = true;
  bool race_check = true;
  bool elide_copies = true;
  bool fuse_rows = true;
  std::string chip = "a2";
  pto::detail::LaunchArgs args;
};

pto::detail::TensorArg tensor(DType dt, std::vector<int64_t> shape, int position, void* data = nullptr) {
  pto::detail::TensorArg t{.position = position, .dtype = dt, .rank = static_cast<int>(shape.size()), .data = data};
  std::copy(shape.begin(), shape.end(), t.shape.begin());
  return t;
}

Inputs base() {
  Inputs in;
  static float storage[8];
  in.args.tensors = {tensor(DType::f32, {4096}, 0, storage), tensor(DType::f16, {32, 128}, 1, storage + 1)};
  in.args.scalars = {5};
  return in;
}

pto::SpecKey key(const Inputs& in) {
  return pto::make_spec_key({.kernel_uid = in.uid,
                             .opt_level = in.opt_level,
                             .auto_mutex = in.auto_mutex,
                             .timing = in.timing,
                             .race_check = in.race_check,
                             .elide_copies = in.elide_copies,
                             .fuse_rows = in.fuse_rows,
                             .chip = &in.chip,
                             .args = &in.args});
}

}  // namespace

TEST_CASE("make_spec_key is equal, with an equal hash, for equal inputs") {
  const Inputs a = base();
  const Inputs b = base();
  const pto::SpecKey ka = key(a), kb = key(b);
  CHECK(ka == kb);
  CHECK(ka.hash == kb.hash);
  CHECK(ka.bytes == kb.bytes);
  CHECK_FALSE(ka.bytes.empty());
}

TEST_CASE("make_spec_key ignores data pointers and scalar argument values") {
  const Inputs a = base();
  Inputs b = base();
  static double other[4];
  b.args.tensors[0].data = other;
  b.args.tensors[1].data = nullptr;
  b.args.scalars = {123456};
  CHECK(key(a) == key(b));
}

TEST_CASE("make_spec_key differs when any keyed field differs") {
  const pto::SpecKey k0 = key(base());
  struct Variant {
    const char* what;
    void (*change)(Inputs&);
  };
  const Variant variants[] = {
      {"kernel uid", [](Inputs& in) { in.uid = 8; }},
      {"opt_level", [](Inputs& in) { in.opt_level = 3; }},
      {"opt_level 0", [](Inputs& in) { in.opt_level = 0; }},
      {"auto_mutex", [](Inputs& in) { in.auto_mutex = true; }},
      {"timing", [](Inputs& in) { in.timing = false; }},
      {"race_check", [](Inputs& in) { in.race_check = false; }},
      {"elide_copies", [](Inputs& in) { in.elide_copies = false; }},
      {"fuse_rows", [](Inputs& in) { in.fuse_rows = false; }},
      {"chip", [](Inputs& in) { in.chip = "a5"; }},
      {"chip path", [](Inputs& in) { in.chip = "a2.json"; }},
      {"1-D length", [](Inputs& in) { in.args.tensors[0].shape = {4099}; }},
      {"2-D rows", [](Inputs& in) { in.args.tensors[1].shape = {33, 128}; }},
      {"2-D cols", [](Inputs& in) { in.args.tensors[1].shape = {32, 136}; }},
      {"transposed shape", [](Inputs& in) { in.args.tensors[1].shape = {128, 32}; }},
      {"rank (1-D [n] vs 2-D [1 x n])", [](Inputs& in) { in.args.tensors[0].rank = 2, in.args.tensors[0].shape = {1, 4096}; }},
      {"rank (2-D vs 3-D [1 x r x c])", [](Inputs& in) { in.args.tensors[1].rank = 3, in.args.tensors[1].shape = {1, 32, 128}; }},
      {"strides (a transposed view)", [](Inputs& in) { in.args.tensors[1].strides = {1, 32}; }},
      {"a dimension declared dynamic", [](Inputs& in) { in.args.tensors[1].dynamic = 1; }},
      {"first dtype", [](Inputs& in) { in.args.tensors[0].dtype = DType::i32; }},
      {"second dtype", [](Inputs& in) { in.args.tensors[1].dtype = DType::bf16; }},
      {"dtypes swapped", [](Inputs& in) { std::swap(in.args.tensors[0].dtype, in.args.tensors[1].dtype); }},
      {"one tensor fewer", [](Inputs& in) { in.args.tensors.pop_back(); }},
      {"one tensor more", [](Inputs& in) { in.args.tensors.push_back(tensor(DType::f32, {8}, 2)); }},
      {"scalar count", [](Inputs& in) { in.args.scalars.push_back(1); }},
      {"no scalars", [](Inputs& in) { in.args.scalars.clear(); }},
  };
  std::vector<pto::SpecKey> seen = {k0};
  for (const auto& v : variants) {
    CAPTURE(v.what);
    Inputs in = base();
    v.change(in);
    const pto::SpecKey k = key(in);
    CHECK_FALSE(k == k0);
    CHECK(k.bytes != k0.bytes);
    CHECK(k.hash != k0.hash);
    // And from every other variant.
    for (const auto& s : seen) CHECK_FALSE(k == s);
    seen.push_back(k);
  }
}

TEST_CASE("make_spec_key does not confuse a chip name with neighbouring fields") {
  // A length-prefixed encoding keeps "a2" + tensors apart from a longer chip name.
  Inputs a = base();
  Inputs b = base();
  b.chip = "a2x";
  CHECK_FALSE(key(a) == key(b));
  Inputs c = base();
  c.chip = "";
  CHECK_FALSE(key(a) == key(c));
}
