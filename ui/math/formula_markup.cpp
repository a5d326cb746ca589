#include "math/formula_markup.h"

namespace poslab::ui {

namespace {

// Recursive-descent reader over the markup; `depth` bounds nesting so no input can overflow the
// stack (deeper groups are read as literal text).
class Reader {
 public:
  explicit Reader(const QString& s) : s_(s), close_(s.size(), -1) {
    // Matching braces in one pass, so that an unclosed '{' is known at once (no rescanning).
    std::vector<int> open;
    for (int k = 0; k < s_.size(); ++k) {
      if (s_[k] == '\\') {
        ++k;
        continue;
      }
      if (s_[k] == '{') open.push_back(k);
      if (s_[k] == '}' && !open.empty()) {
        close_[open.back()] = k;
        open.pop_back();
      }
    }
  }

  // Items until the end or an unmatched '}' (left for the caller).
  std::unique_ptr<FormulaNode> sequence(int depth) {
    auto group = std::make_unique<FormulaNode>();
    group->kind = FormulaNode::Kind::Group;
    QString run;
    auto flushRun = [&] {
      if (run.isEmpty()) return;
      auto t = std::make_unique<FormulaNode>();
      t->kind = FormulaNode::Kind::Text;
      t->text = run;
      group->children.push_back(std::move(t));
      run.clear();
    };
    while (i_ < s_.size()) {
      const QChar c = s_[i_];
      if (c == '}' && depth > 0) break;  // the group's own closing brace (braced() checks)
      if ((c == '_' || c == '^') && i_ + 1 < s_.size()) {
        // The script's base is the last character written (or the last group / fraction).
        std::unique_ptr<FormulaNode> base;
        if (!run.isEmpty()) {
          const int n = lastCharacterLength(run);
          auto t = std::make_unique<FormulaNode>();
          t->kind = FormulaNode::Kind::Text;
          t->text = run.right(n);
          run.chop(n);
          flushRun();
          base = std::move(t);
        } else if (!group->children.empty() &&
                   depth + scriptChain(*group->children.back()) + 1 < kMaxDepth) {
          // x^a^b^c...: each mark wraps the last item once more; past kMaxDepth levels the mark
          // is literal text, so a chain of marks cannot exhaust the stack either.
          base = std::move(group->children.back());
          group->children.pop_back();
        }
        if (base) {
          group->children.push_back(scripts(std::move(base), depth));
          continue;
        }
      }
      if (c == '\\' && s_.mid(i_, 6) == QLatin1String("\\frac{")) {
        flushRun();
        const int start = i_;
        i_ += 5;
        auto num = braced(depth);
        auto den = num && i_ < s_.size() && s_[i_] == '{' ? braced(depth) : nullptr;
        if (num && den) {
          auto f = std::make_unique<FormulaNode>();
          f->kind = FormulaNode::Kind::Fraction;
          f->children.push_back(std::move(num));
          f->children.push_back(std::move(den));
          group->children.push_back(std::move(f));
        } else {
          i_ = start + 1;  // not a fraction after all: print the backslash and go on
          run += '\\';
        }
        continue;
      }
      if (c == '\\' && i_ + 1 < s_.size() && QStringLiteral("{}_^\\").contains(s_[i_ + 1])) {
        run += s_[i_ + 1];
        i_ += 2;
        continue;
      }
      if (c == '{') {
        const int start = i_;
        auto g = braced(depth);
        if (g) {
          flushRun();
          group->children.push_back(std::move(g));
        } else {
          i_ = start + 1;  // unclosed: a literal brace
          run += '{';
        }
        continue;
      }
      run += c;
      ++i_;
    }
    flushRun();
    return group;
  }

 private:
  static constexpr int kMaxDepth = 32;

  // `{ ... }` at i_: the group, with i_ past its '}'; null (i_ unchanged) if it never closes.
  // Beyond kMaxDepth the whole group is one literal text, so nesting cannot exhaust the stack.
  std::unique_ptr<FormulaNode> braced(int depth) {
    const int close = close_[i_];
    if (close < 0) return nullptr;
    if (depth + 1 >= kMaxDepth) {
      auto t = std::make_unique<FormulaNode>();
      t->kind = FormulaNode::Kind::Text;
      t->text = s_.mid(i_, close - i_ + 1);
      i_ = close + 1;
      return t;
    }
    ++i_;
    auto g = sequence(depth + 1);
    i_ = close + 1;
    return g;
  }

  // One script argument at i_: a braced group or one character.
  std::unique_ptr<FormulaNode> argument(int depth) {
    if (s_[i_] == '{') {
      if (auto g = braced(depth)) return g;
    }
    const int n = characterLength(i_);
    auto t = std::make_unique<FormulaNode>();
    t->kind = FormulaNode::Kind::Text;
    t->text = s_.mid(i_, n);
    i_ += n;
    return t;
  }

  // base followed by _x and/or ^y (i_ at the first mark).
  std::unique_ptr<FormulaNode> scripts(std::unique_ptr<FormulaNode> base, int depth) {
    auto node = std::make_unique<FormulaNode>();
    node->kind = FormulaNode::Kind::Scripted;
    node->children.push_back(std::move(base));
    while (i_ + 1 < s_.size() && (s_[i_] == '_' || s_[i_] == '^')) {
      auto& slot = s_[i_] == '_' ? node->sub : node->sup;
      if (slot) break;  // x_a_b: the second script starts a new item
      ++i_;
      slot = argument(depth);
    }
    return node;
  }

  // How many Scripted nodes are nested as bases from `node` down (up to kMaxDepth).
  static int scriptChain(const FormulaNode& node) {
    int n = 0;
    for (const FormulaNode* at = &node;
         n < kMaxDepth && at->kind == FormulaNode::Kind::Scripted && !at->children.empty();
         at = at->children.front().get())
      ++n;
    return n;
  }

  // Code units of the character at index k: a surrogate pair and any combining marks after it.
  int characterLength(int k) const {
    int n = (s_[k].isHighSurrogate() && k + 1 < s_.size()) ? 2 : 1;
    while (k + n < s_.size() && s_[k + n].isMark()) ++n;
    return n;
  }
  static int lastCharacterLength(const QString& run) {
    int n = 1;
    while (n < run.size() && run[run.size() - n].isMark()) ++n;
    if (n < run.size() && run[run.size() - n].isLowSurrogate()) ++n;
    return n;
  }

  const QString& s_;
  std::vector<int> close_;  // index of the '}' matching the '{' at each index; -1 otherwise
  int i_ = 0;
};

QString escaped(const QString& text) {
  QString out;
  for (QChar c : text) {
    if (QStringLiteral("{}_^\\").contains(c)) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::unique_ptr<FormulaNode> parseFormula(const QString& markup) {
  Reader r(markup);
  auto root = r.sequence(0);
  return root;
}

QString formulaCanonical(const FormulaNode& node) {
  switch (node.kind) {
    case FormulaNode::Kind::Text:
      return escaped(node.text);
    case FormulaNode::Kind::Group: {
      QString out;
      for (const auto& c : node.children) {
        const bool braced = c->kind == FormulaNode::Kind::Group;
        out += braced ? "{" + formulaCanonical(*c) + "}" : formulaCanonical(*c);
      }
      return out;
    }
    case FormulaNode::Kind::Scripted: {
      const FormulaNode& base = *node.children[0];
      QString out = base.kind == FormulaNode::Kind::Group ? "{" + formulaCanonical(base) + "}"
                                                          : formulaCanonical(base);
      if (node.sub) out += "_{" + formulaCanonical(*node.sub) + "}";
      if (node.sup) out += "^{" + formulaCanonical(*node.sup) + "}";
      return out;
    }
    case FormulaNode::Kind::Fraction:
      return "\\frac{" + formulaCanonical(*node.children[0]) + "}{" +
             formulaCanonical(*node.children[1]) + "}";
  }
  return {};
}

QString formulaToHtml(const FormulaNode& node) {
  switch (node.kind) {
    case FormulaNode::Kind::Text:
      return node.text.toHtmlEscaped();
    case FormulaNode::Kind::Group: {
      QString out;
      for (const auto& c : node.children) out += formulaToHtml(*c);
      return out;
    }
    case FormulaNode::Kind::Scripted: {
      QString out = formulaToHtml(*node.children[0]);
      if (node.sub) out += "<sub>" + formulaToHtml(*node.sub) + "</sub>";
      if (node.sup) out += "<sup>" + formulaToHtml(*node.sup) + "</sup>";
      return out;
    }
    case FormulaNode::Kind::Fraction:
      return formulaToHtml(*node.children[0]) + "/" + formulaToHtml(*node.children[1]);
  }
  return {};
}

}  // namespace poslab::ui
