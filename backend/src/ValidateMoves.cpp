#include <optional>

#include "pto/backend/Passes.hpp"
#include "pto/ir/Visitor.hpp"

namespace pto::backend {
namespace {

using ir::int_constant;

class MoveValidator : public ir::Visitor {
 public:
  MoveValidator(const ir::Kernel& k, const ChipProfile& chip) : k_(k), chip_(chip) {}

 protected:
  void visit_node(const ir::Load* op) override { check(op->dst, op->src, *op, "load"); }
  void visit_node(const ir::Store* op) override {
    check(op->src, op->dst, *op, "store");
    PTO_USER_CHECK(!op->atomic_add || int_constant(ir::region_stride(op->dst, 1)) == 1, site(*op))
        << "an atomic-add store needs a region whose columns are contiguous; this view's column stride is not 1 (a permuted tensor)";
  }
  /// getval / setval address a tensor by its row-major element index: the argument must be contiguous.
  void visit_node(const ir::ElemAccess* op) override {
    if (op->tensor < 0) return;
    const auto& t = k_.tensors[static_cast<size_t>(op->tensor)];
    PTO_USER_CHECK(t.contiguous(), site(*op)) << (op->write ? "setval" : "getval") << " of tensor " << t.name
                                              << ", a non-contiguous view (permute, narrow or select on the host): its element "
                                                 "offsets are row-major indices; pass a contiguous tensor";
  }

 private:
  ErrorSite site(const ir::Instr& i) const { return instr_site(k_, i); }

  void check(const ir::TileRef& t, const ir::GMRegion& r, const ir::Instr& instr, const char* what) {
    const auto& g = k_.groups[t.group];
    const auto& tensor = k_.tensors[r.tensor];
    const int64_t align = gm_move_alignment(chip_, g.space);
    const int64_t es = static_cast<int64_t>(dtype_size(g.dtype));
    // A one-row tile is one run; a one-column Vec tile is PyPTO Pro's DN [rows, 1] tile (its
    // elements contiguous, one per GM row): neither has a row pitch to align.
    const bool column = g.cols == 1 && g.space == ir::MemSpace::Vec;
    PTO_USER_CHECK(g.rows == 1 || column || align <= 1 || (g.cols * es) % align == 0, site(instr))
        << what << " moves rows of a " << g.rows << "x" << g.cols << " " << dtype_name(g.dtype) << " tile whose row pitch is "
        << g.cols * es << " B, not a multiple of the " << align << " B alignment of " << ir::mem_space_name(g.space)
        << "; pad the tile to " << (g.cols * es + align - 1) / align * align / es << " columns";
    // FIX's conversions out of Acc (lang::FixConversion): f32 or i32 to f16, bf16, i8 or f32.
    const bool fix_cast = g.space == ir::MemSpace::Acc && (g.dtype == DType::f32 || g.dtype == DType::i32) &&
                          (tensor.dtype == DType::f16 || tensor.dtype == DType::bf16 || tensor.dtype == DType::i8 ||
                           tensor.dtype == DType::f32);
    PTO_USER_CHECK(g.dtype == tensor.dtype || fix_cast, site(instr))
        << what << " between a " << dtype_name(g.dtype) << " tile and a " << dtype_name(tensor.dtype) << " tensor";
    const char* axis[2] = {"rows", "columns"};
    const int64_t cap[2] = {g.rows, g.cols};
    for (int d = 0; d < 2; ++d) {
      auto ext = int_constant(r.extent[d]);
      auto off = int_constant(r.offset[d]);
      if (ext) {
        PTO_USER_CHECK(*ext >= 0, site(instr)) << what << " of a negative extent " << *ext << " (" << axis[d] << ")";
        PTO_USER_CHECK(*ext <= cap[d], site(instr)) << what << " of " << *ext << " " << axis[d] << " into a tile of " << cap[d]
                                                    << " " << axis[d] << " (" << g.name << ", " << g.rows << "x" << g.cols << ")";
      }
      const auto view = int_constant(r.view[d]);  // a dynamic dimension is checked when the core runs (insert_checks)
      if (ext && off && view) {
        PTO_USER_CHECK(*off >= 0 && *off + *ext <= *view, site(instr))
            << what << " region [" << *off << ", " << *off + *ext << ") is outside the tensor's " << *view << " " << axis[d];
      }
    }
    if (auto off = int_constant(r.offset[1])) {
      PTO_USER_CHECK((*off * es) % align == 0, site(instr))
          << what << " starts at column offset " << *off << " (" << *off * es << " B), not aligned to " << align << " B";
    }
  }

  const ir::Kernel& k_;
  const ChipProfile& chip_;
};

}  // namespace

void validate_moves(const ir::Kernel& k, const ChipProfile& chip) { MoveValidator(k, chip).visit(k.body); }

}  // namespace pto::backend
