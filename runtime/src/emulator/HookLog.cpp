#include "HookLog.hpp"

#include <algorithm>
#include <cstdint>

#include "CrossFlags.hpp"
#include "pto/support/Prefetch.hpp"

namespace pto::emulator {
namespace {

using namespace hook_record;  // the records' words

/// Whether the region [lo, hi) of rows `width` wide, `d` elements further on, is the same
/// rectangle moved (Touch::overlaps compares two regions of one width as rectangles: rows
/// [lo / width, r1], columns [lo % width, c1), r1 and c1 from hi): then its overlaps with the
/// other regions of its tensor, moved alike, are the twin's. A region within one row on both
/// sides is compared as its range, which moves as it is. (An in-bounds slice of a view moves as a
/// rectangle; its flattened span moved by a part of a row could otherwise cross a row's end.)
bool moves_as_rectangle(int64_t width, int64_t lo, int64_t hi, int64_t d) {
  struct Rect {
    int64_t r0, r1, c0, c1;
  };
  auto rect = [width](int64_t l, int64_t h) {
    const int64_t c0 = l % width, r1 = (h - c0 - 1) / width;
    return Rect{l / width, r1, c0, h - r1 * width};
  };
  const Rect a = rect(lo, hi), b = rect(lo + d, hi + d);
  if (a.r0 == a.r1 && b.r0 == b.r1) return true;
  return b.r1 - a.r1 == b.r0 - a.r0 && b.c0 - a.c0 == b.c1 - a.c1;
}

}  // namespace

StoragePool<std::vector<int64_t>>& hook_storage_pool() {
  static StoragePool<std::vector<int64_t>> pool;
  return pool;
}

std::vector<uint8_t> hook_tile_counts(const ir::Kernel& k) {
  std::vector<uint8_t> counts(k.instrs.size());
  if (counts.size() > kInstrMask) return {};
  for (size_t i = 0; i < counts.size(); ++i) {
    if (k.instrs[i].tiles.size() > UINT8_MAX) return {};
    counts[i] = static_cast<uint8_t>(k.instrs[i].tiles.size());
  }
  return counts;
}

HookLog::HookLog(std::span<const uint8_t> tiles_of, std::vector<int64_t>&& storage)
    : tiles_of_(tiles_of),
      max_record_(kExecWords + (tiles_of.empty() ? 0 : *std::max_element(tiles_of.begin(), tiles_of.end()))),
      words_(std::move(storage)) {
  if (words_.size() < 4096) words_.resize(4096);
  cursor_.at = words_.data();
  set_limit();
}

void HookLog::set_limit() { cursor_.limit = words_.data() + (words_.size() - max_record_ - kAhead); }

void HookLog::grow() {
  const size_t at = used();
  words_.resize(words_.size() * 2);
  cursor_.at = words_.data() + at;
  set_limit();
}

inline int64_t* HookLog::reserve() {
  if (cursor_.at > cursor_.limit) [[unlikely]] grow();
  int64_t* w = cursor_.at;
  // The log's next lines asked for now: between a core's tiles the host's cache holds the tiles'
  // GM streams, not the log, and a store to a line not there holds up the stores after it.
  prefetch_for_write(w + kAhead);
  return w;
}

inline void HookLog::append_exec(uint64_t tag, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  int64_t* w = reserve();  // read once: the stores below may alias the cursor
  const size_t tiles = tiles_of_[static_cast<size_t>(instr)];
  w[0] = static_cast<int64_t>(tag | (uint64_t{kExec} << kKindShift) | static_cast<uint32_t>(instr));
  w[1] = amount;
  w[2] = gm_lo;
  w[3] = gm_hi;
  for (size_t i = 0; i < tiles; ++i) w[kExecWords + i] = slots[i];  // one to three: no memcpy call
  cursor_.at = w + kExecWords + tiles;
}

inline void HookLog::append_sync(uint64_t tag, int32_t instr, int64_t event, int64_t slot) {
  int64_t* w = reserve();
  constexpr uint64_t kLimit = uint64_t{1} << kPackedBits;
  const uint64_t e = static_cast<uint64_t>(event) + 1, s = static_cast<uint64_t>(slot) + 1;  // -1 (none) packs as 0
  if (e < kLimit && s < kLimit) {
    w[0] = static_cast<int64_t>((((e << kPackedBits) | s) << kPackedShift) | (uint64_t{kSyncPacked} << kKindShift) | tag |
                                static_cast<uint32_t>(instr));
    cursor_.at = w + 1;
    return;
  }
  w[0] = static_cast<int64_t>(tag | (uint64_t{kSync} << kKindShift) | static_cast<uint32_t>(instr));
  w[1] = event;
  w[2] = slot;
  cursor_.at = w + kSyncWords;
}

void HookLog::exec_hook(void* log, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  static_cast<HookLog*>(log)->append_exec(0, instr, amount, slots, gm_lo, gm_hi);
}

void HookLog::sync_hook(void* log, int32_t instr, int64_t event, int64_t slot) { static_cast<HookLog*>(log)->append_sync(0, instr, event, slot); }

void HookLog::slot_exec_hook(void* writer, int32_t instr, int64_t amount, const int64_t* slots, int64_t gm_lo, int64_t gm_hi) {
  const auto& w = *static_cast<const SlotWriter*>(writer);
  w.log->append_exec(slot_tag(w.slot), instr, amount, slots, gm_lo, gm_hi);
}

void HookLog::slot_sync_hook(void* writer, int32_t instr, int64_t event, int64_t slot) {
  const auto& w = *static_cast<const SlotWriter*>(writer);
  w.log->append_sync(slot_tag(w.slot), instr, event, slot);
}

void HookLog::cross(int slot, bool set, ir::Pipe pipe, int64_t event, int32_t instr) {
  int64_t* w = reserve();
  w[0] = static_cast<int64_t>((static_cast<uint64_t>(event) << kCrossEventShift) | (uint64_t{static_cast<uint8_t>(pipe)} << kCrossPipeShift) |
                              (uint64_t{set} << kPackedShift) | (uint64_t{kCross} << kKindShift) |
                              (static_cast<uint64_t>(slot) << kSlotShift) | static_cast<uint32_t>(instr));
  cursor_.at = w + 1;
}

inline size_t HookLog::record_words(uint64_t first) const {
  switch ((first >> kKindShift) & 3) {
    case kExec: return kExecWords + tiles_of_[first & kInstrMask];
    case kSyncPacked:
    case kCross: return 1;
    default: return kSyncWords;
  }
}

void HookLog::play(std::span<CoreModel* const> models) const {
  const int64_t* w = words_.data();
  const int64_t* const end = w + used();
  constexpr uint64_t kMask = (uint64_t{1} << kPackedBits) - 1;
  CrossFlags flags;  // a mix block's flags in flight, as CoreGroup held them in the run
  while (w < end) {
    const auto first = static_cast<uint64_t>(w[0]);
    const auto instr = static_cast<int32_t>(first & kInstrMask);
    const auto slot = static_cast<int>((first >> kSlotShift) & 3);
    CoreModel& model = *models[static_cast<size_t>(slot)];
    switch ((first >> kKindShift) & 3) {
      case kExec: model.exec(instr, w[1], w + kExecWords, w[2], w[3]); break;
      case kSyncPacked:
        model.sync(instr, static_cast<int64_t>((first >> (kPackedShift + kPackedBits)) & kMask) - 1,
                   static_cast<int64_t>((first >> kPackedShift) & kMask) - 1);
        break;
      case kCross: {
        const auto pipe = static_cast<ir::Pipe>((first >> kCrossPipeShift) & 15);
        const auto event = static_cast<int>((first >> kCrossEventShift) & 15);
        if ((first >> kPackedShift) & 1) {
          flags.set(slot, event, model.cross_set(pipe, instr));
        } else {
          model.cross_wait(pipe, flags.take(slot, event), instr);
        }
        break;
      }
      default: model.sync(instr, w[1], w[2]); break;
    }
    w += record_words(first);
  }
}

bool HookLog::gm_shifts_from(const HookLog& twin, std::span<const GmRegionShape> shape, std::vector<int64_t>& shifts) const {
  constexpr int64_t kUnset = INT64_MIN;
  if (used() != twin.used()) return false;
  std::fill(shifts.begin(), shifts.end(), kUnset);
  const int64_t* w = words_.data();
  const int64_t* t = twin.words_.data();
  const int64_t* const end = w + used();
  while (w < end) {
    if (w[0] != t[0]) return false;
    const auto first = static_cast<uint64_t>(w[0]);
    const size_t words = record_words(first);
    if (((first >> kKindShift) & 3) == kExec) {
      const GmRegionShape region = shape[first & kInstrMask];
      const int64_t width = region.width;
      if (width < 0 || w[3] <= w[2]) {  // no GM region, or an empty one: the same words
        if (w[2] != t[2] || w[3] != t[3]) return false;
      } else {
        const int64_t d = w[2] - t[2];
        int64_t& shift = shifts.at(static_cast<size_t>(region.tensor));
        if (w[3] - t[3] != d || (shift != kUnset && shift != d) || !(width == 0 || moves_as_rectangle(width, t[2], t[3], d))) return false;
        shift = d;
      }
      if (w[1] != t[1] || !std::equal(w + kExecWords, w + words, t + kExecWords)) return false;
    } else if (!std::equal(w + 1, w + words, t + 1)) {  // a sync: event and slot, unless packed in the first word
      return false;
    }
    w += words, t += words;
  }
  for (int64_t& shift : shifts) shift = shift == kUnset ? 0 : shift;
  return true;
}

}  // namespace pto::emulator
