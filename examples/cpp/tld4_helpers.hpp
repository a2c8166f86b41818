// Small C++ conveniences over tld4's C ABI, shared by the toy SM's files: owners for the
// create/free pairs, and a check that turns a failed call into an exception carrying the
// whole error record (status, fault kind, detail), never only its message.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "tld4.h"

namespace sim {

struct InsnFree { void operator()(tld4_insn *p) const { tld4_insn_free(p); } };
struct ExecFree { void operator()(tld4_exec *p) const { tld4_exec_free(p); } };
struct PoolFree { void operator()(tld4_pool *p) const { tld4_pool_free(p); } };
struct BoundFree { void operator()(tld4_bound *p) const { tld4_bound_free(p); } };
using Insn = std::unique_ptr<tld4_insn, InsnFree>;
using Exec = std::unique_ptr<tld4_exec, ExecFree>;
using Pool = std::unique_ptr<tld4_pool, PoolFree>;
using Bound = std::unique_ptr<tld4_bound, BoundFree>;

// A call that was expected to succeed did not: the record, for the caller to classify.
struct Tld4Failure : std::runtime_error {
  tld4_error record;
  Tld4Failure(const char *what, const tld4_error &e)
      : std::runtime_error(std::string(what) + ": " + e.message), record(e) {}
};

inline void ok(tld4_status s, const tld4_error &e, const char *what) {
  if (s != TLD4_OK) throw Tld4Failure(what, e);
}

}  // namespace sim
