#include "io/pickle_check.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace poslab {

namespace {

// Value kinds the check tracks on its simulated stack.
enum class Kind { Scalar, String, Global, Tuple, Dict, List, Object };

struct Value {
  Kind kind = Kind::Scalar;
  int depth = 0;                     // nesting below this value
  std::string global;                // for Kind::Global: "module.name"
  Kind firstElement = Kind::Scalar;  // for Kind::Tuple: what restore_type_tag(x, tag) returns
};

// The globals torch's pickler writes for tensors, storages, dicts and type tags.
bool knownGlobal(const std::string& module, const std::string& name) {
  if (module == "torch._utils") return name == "_rebuild_tensor_v2";
  if (module == "collections") return name == "OrderedDict";
  if (module == "torch.jit._pickle")
    return name == "restore_type_tag" || name == "build_intlist" || name == "build_tensorlist" ||
           name == "build_doublelist" || name == "build_boollist";
  if (module == "torch") {
    static const char* const kStorages[] = {
        "FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage",
        "IntStorage",   "ShortStorage",  "CharStorage", "ByteStorage",     "BoolStorage"};
    return std::any_of(std::begin(kStorages), std::end(kStorages),
                       [&](const char* s) { return name == s; });
  }
  return false;
}

class Checker {
 public:
  explicit Checker(std::string_view p) : p_(p) {}

  std::string run() {
    if (p_.size() < 2 || static_cast<uint8_t>(p_[0]) != 0x80 || static_cast<uint8_t>(p_[1]) != 2)
      return "it does not start with pickle protocol 2";
    pos_ = 2;
    while (problem_.empty()) {
      if (pos_ >= p_.size()) return "the pickle ends without STOP";
      const size_t at = pos_;
      const char op = p_[pos_++];
      if (op == '.') {  // STOP
        if (stack_.size() != 1 || !marks_.empty()) return fail(at, op, "leaves no single value");
        if (pos_ != p_.size()) return fail(at, op, "is followed by more bytes");
        return {};
      }
      step(at, op);
    }
    return problem_;
  }

 private:
  std::string fail(size_t at, char op, const std::string& what) {
    const auto code = static_cast<unsigned>(static_cast<uint8_t>(op));
    char name[16];
    if (code >= 0x20 && code < 0x7f)
      std::snprintf(name, sizeof name, "'%c'", op);
    else
      std::snprintf(name, sizeof name, "0x%02x", code);
    if (problem_.empty())
      problem_ = std::string("opcode ") + name + " at byte " + std::to_string(at) + " " + what;
    return problem_;
  }

  bool take(size_t n, std::string_view* out = nullptr) {
    if (p_.size() - pos_ < n) return false;
    if (out) *out = p_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  uint32_t le(std::string_view b) const {
    uint32_t v = 0;
    for (size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<uint8_t>(b[i]);
    return v;
  }
  // Values above the innermost MARK (all values without one).
  size_t aboveMark() const { return stack_.size() - (marks_.empty() ? 0 : marks_.back()); }
  void push(Value v) {
    if (v.depth > kMaxPickleDepth) {
      problem_ = "the pickle nests deeper than " + std::to_string(kMaxPickleDepth);
      return;
    }
    stack_.push_back(std::move(v));
  }
  Value pop() {
    Value v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  // Puts `item`'s depth into container `c` (which is still on the stack).
  void nest(Value& c, const Value& item) {
    c.depth = std::max(c.depth, item.depth + 1);
    if (c.depth > kMaxPickleDepth)
      problem_ = "the pickle nests deeper than " + std::to_string(kMaxPickleDepth);
  }
  Value tupleOf(size_t from) {
    Value t{Kind::Tuple};
    if (from < stack_.size()) t.firstElement = stack_[from].kind;
    for (size_t i = from; i < stack_.size(); ++i) t.depth = std::max(t.depth, stack_[i].depth + 1);
    stack_.resize(from);
    return t;
  }

  void step(size_t at, char op) {
    std::string_view arg;
    switch (static_cast<uint8_t>(op)) {
      case '(':  // MARK
        marks_.push_back(stack_.size());
        return;
      case '}':  // EMPTY_DICT
        return push({Kind::Dict});
      case ']':  // EMPTY_LIST
        return push({Kind::List});
      case ')':  // EMPTY_TUPLE
        return push({Kind::Tuple});
      case 'N':   // NONE
      case 0x88:  // NEWTRUE
      case 0x89:  // NEWFALSE
        return push({Kind::Scalar});
      case 'K':  // BININT1
        if (!take(1)) return (void)fail(at, op, "is cut short");
        return push({Kind::Scalar});
      case 'M':  // BININT2
        if (!take(2)) return (void)fail(at, op, "is cut short");
        return push({Kind::Scalar});
      case 'J':  // BININT
        if (!take(4)) return (void)fail(at, op, "is cut short");
        return push({Kind::Scalar});
      case 'G':  // BINFLOAT
        if (!take(8)) return (void)fail(at, op, "is cut short");
        return push({Kind::Scalar});
      case 0x8a: {  // LONG1
        if (!take(1, &arg)) return (void)fail(at, op, "is cut short");
        const size_t n = static_cast<uint8_t>(arg[0]);
        if (n > 8) return (void)fail(at, op, "holds more than 64 bits");
        if (!take(n)) return (void)fail(at, op, "is cut short");
        return push({Kind::Scalar});
      }
      case 'X': {  // BINUNICODE
        if (!take(4, &arg)) return (void)fail(at, op, "is cut short");
        if (!take(le(arg))) return (void)fail(at, op, "claims more bytes than the pickle has");
        return push({Kind::String});
      }
      case 'c': {  // GLOBAL: "module\nname\n"
        const size_t end1 = p_.find('\n', pos_);
        const size_t end2 = end1 == std::string_view::npos ? end1 : p_.find('\n', end1 + 1);
        if (end2 == std::string_view::npos || end2 - pos_ > 256)
          return (void)fail(at, op, "has no module and name");
        const std::string module(p_.substr(pos_, end1 - pos_));
        const std::string name(p_.substr(end1 + 1, end2 - end1 - 1));
        pos_ = end2 + 1;
        if (!knownGlobal(module, name))
          return (void)fail(at, op, "names " + module + "." + name + ", not a tensor or type tag");
        Value g{Kind::Global};
        g.global = module + "." + name;
        return push(g);
      }
      case 't':  // TUPLE
        if (marks_.empty()) return (void)fail(at, op, "has no MARK before it");
        {
          Value t = tupleOf(marks_.back());
          marks_.pop_back();
          return push(t);
        }
      case 0x85:    // TUPLE1
      case 0x86:    // TUPLE2
      case 0x87: {  // TUPLE3
        const size_t n = static_cast<uint8_t>(op) - 0x84;
        if (aboveMark() < n) return (void)fail(at, op, "has too few values before it");
        return push(tupleOf(stack_.size() - n));
      }
      case 's':  // SETITEM: dict key value
        if (aboveMark() < 3 || stack_[stack_.size() - 3].kind != Kind::Dict)
          return (void)fail(at, op, "has no dict, key and value before it");
        {
          Value v = pop();
          Value k = pop();
          nest(stack_.back(), k);
          nest(stack_.back(), v);
        }
        return;
      case 'u':    // SETITEMS: dict MARK key value ...
      case 'e': {  // APPENDS: list MARK item ...
        const Kind want = op == 'u' ? Kind::Dict : Kind::List;
        if (marks_.empty() || marks_.back() == 0 || stack_[marks_.back() - 1].kind != want)
          return (void)fail(
              at, op,
              op == 'u' ? "has no dict and MARK before it" : "has no list and MARK before it");
        const size_t mark = marks_.back();
        marks_.pop_back();
        if (op == 'u' && (stack_.size() - mark) % 2 != 0)
          return (void)fail(at, op, "has a key without a value");
        Value& c = stack_[mark - 1];
        for (size_t i = mark; i < stack_.size(); ++i) nest(c, stack_[i]);
        stack_.resize(mark);
        return;
      }
      case 'a':  // APPEND: list item
        if (aboveMark() < 2 || stack_[stack_.size() - 2].kind != Kind::List)
          return (void)fail(at, op, "has no list and item before it");
        {
          Value v = pop();
          nest(stack_.back(), v);
        }
        return;
      case 'Q': {  // BINPERSID: a storage, from a tuple ("storage", type, key, location, numel)
        if (aboveMark() < 1 || stack_.back().kind != Kind::Tuple)
          return (void)fail(at, op, "has no tuple before it");
        Value id = pop();
        Value storage{Kind::Object};
        storage.depth = id.depth;
        return push(storage);
      }
      case 'R': {  // REDUCE: global args
        if (aboveMark() < 2 || stack_.back().kind != Kind::Tuple ||
            stack_[stack_.size() - 2].kind != Kind::Global)
          return (void)fail(at, op, "has no global and argument tuple before it");
        Value args = pop();
        Value g = pop();
        Value out{Kind::Object};
        if (g.global == "collections.OrderedDict") out.kind = Kind::Dict;
        // restore_type_tag(value, "Dict[str, Tensor]") returns its value
        if (g.global == "torch.jit._pickle.restore_type_tag") out.kind = args.firstElement;
        out.depth = args.depth;
        return push(out);
      }
      case 'q':    // BINPUT
      case 'r': {  // LONG_BINPUT
        if (!take(op == 'q' ? 1 : 4, &arg)) return (void)fail(at, op, "is cut short");
        const uint32_t id = le(arg);
        if (stack_.empty() || aboveMark() < 1) return (void)fail(at, op, "has no value before it");
        // torch's pickler numbers memo entries 0, 1, 2, ...; a larger id would make the
        // unpickler grow its memo table to that size.
        if (id > memo_.size()) return (void)fail(at, op, "skips memo ids");
        if (id == memo_.size()) memo_.emplace_back();
        memo_[id] = stack_.back();
        memoSet_.resize(memo_.size(), false);
        memoSet_[id] = true;
        return;
      }
      case 'h':    // BINGET
      case 'j': {  // LONG_BINGET
        if (!take(op == 'h' ? 1 : 4, &arg)) return (void)fail(at, op, "is cut short");
        const uint32_t id = le(arg);
        if (id >= memo_.size() || !memoSet_[id])
          return (void)fail(at, op, "refers to a memo entry never stored");
        const Kind k = memo_[id].kind;
        if (k != Kind::Scalar && k != Kind::String && k != Kind::Global)
          return (void)fail(at, op, "shares a container or tensor (PosLab never writes that)");
        return push(memo_[id]);
      }
      default:
        fail(at, op, "is not one PosLab's checkpoints use");
    }
  }

  std::string_view p_;
  size_t pos_ = 0;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::vector<Value> memo_;
  std::vector<bool> memoSet_;
  std::string problem_;
};

}  // namespace

std::string pickleStructureProblem(std::string_view pickle) {
  return Checker(pickle).run();
}

}  // namespace poslab
