#!/usr/bin/env bash
# The family seam (core/encodings/encoding.h): the model and the trainer never ask which family
# they hold. What they need to know about a family is a field of its FamilyInfo (its params, its
# sectorParams) or a method of its Encoding and TrainableForm, so adding a family needs no edit in
# core/model or core/train. Fails listing each family id test there:
#   - a family id (a name that says family, or an id member) compared with a string literal, with a
#     family's declared id (`PjBiasInfo().id`) or an id constant (`kPjDiagnosticsFamily`), or
#     tested by prefix (`family.rfind("jordan", 0)`);
#   - any comparison with a built-in family's id literal (`name == "pj-bias"`), whatever the other
#     side is called (the ids are read from the families' declarations in core/encodings).
# In the rest of core/, ui/ and app/ a family id compared with a string literal fails too.
set -euo pipefail
cd "$(dirname "$0")/.."

# The first string of each FamilyInfo initializer or of an *Info("...") helper call; `"jordan-m" +`
# (ids built from an order) is kept as a prefix.
ids=$(awk '
  /FamilyInfo( info)?\{|[A-Za-z]Info\("/ { want = 3 }
  want > 0 {
    line = $0
    sub(/.*(FamilyInfo( info)?\{|[A-Za-z]Info\()/, "", line)
    if (match(line, /"[a-z][a-z0-9-]*"( *\+)?/)) {
      lit = substr(line, RSTART, RLENGTH)
      gsub(/"/, "", lit)
      if (lit ~ /\+$/) { sub(/ *\+$/, "", lit); lit = lit "[^\"]*" }
      print lit
      want = 0
      next
    }
    want--
  }' core/encodings/*.cpp | sort -u)
count=$(printf '%s\n' "$ids" | grep -c . || true)
if [ "$count" -lt 20 ]; then
  echo "read only ${count} family ids from core/encodings/*.cpp (FamilyInfo initializers); expected"
  echo "every built-in family: has the declaration's form changed?"
  exit 1
fi
quoted="\"($(printf '%s\n' "$ids" | paste -sd '|'))\""

# A family id: a name that says family (family, m.family, familyId()) or an id member (info.id,
# enc.id(), id).
name='([A-Za-z0-9_.>()-]*[Ff]amily[A-Za-z0-9_]*|[A-Za-z0-9_.>()-]*[.>]id|\bid)(\(\))?'
declared='([A-Za-z_:]*Info\(\)\.id|k[A-Z][A-Za-z0-9]*Family)'
strict=(
  "${name} *([=!]=|\.compare\() *(\"|${declared})"
  "(\"[^\"]*\"|${declared}) *[=!]= *${name}"
  "${name}\.(rfind|find|starts_with|ends_with|compare|substr)\( *\""
  "([=!]=|\.compare\() *${quoted}"
  "${quoted} *[=!]="
)
literal=(
  "${name} *([=!]=|\.compare\() *\""
  "\"[^\"]*\" *[=!]= *${name}"
)

# Each line once, in file and line order, whichever patterns it matches.
hitsOf() {  # $1: name of the pattern array; the rest: pathspecs
  local -n patterns=$1
  shift
  for pattern in "${patterns[@]}"; do git grep -n -E "$pattern" -- "$@" || true; done |
    sort -t: -k1,1 -k2,2n -u
}
status=0
hits=$(hitsOf strict core/model core/train)
if [ -n "$hits" ]; then
  echo "family id tested in core/model or core/train (declare what it decides in the family's"
  echo "FamilyInfo, core/encodings/encoding.h):"
  echo "$hits"
  status=1
fi
hits=$(hitsOf literal core ui app ':!core/encodings' ':!core/model' ':!core/train')
if [ -n "$hits" ]; then
  echo "family id compared with a string literal outside core/encodings:"
  echo "$hits"
  status=1
fi
[ "$status" -eq 0 ] && echo "family ids: ${count} declared, none tested in core/model or core/train"
exit "$status"
