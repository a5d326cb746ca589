// Pins are declared by each family on the tensors it learns (Learnable::pin, encodings/trainable.h)
// and listed from those declarations (learnedPinnables, model/pin_check.h): no separate table of
// pinnable names. For every built-in family, each pin it declares holds fixed exactly the tensors
// that declare it, and nothing else changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "encodings/registry.h"
#include "model/pin_check.h"
#include "model/position_module.h"
#include "util/error.h"

namespace poslab {
namespace {

// The learned tensors' names of `family`'s trainable form with `pinned` held fixed.
std::set<std::string> learnedNames(const ModelConfig& cfg, const std::set<std::string>& pinned) {
  TrainableContext ctx;
  ctx.heads = cfg.heads;
  ctx.pinned = pinned;
  std::set<std::string> out;
  for (const Learnable& l :
       makeEncoding(cfg.family, resolvedFamilyParams(cfg, 64))->trainable(ctx)->learnables())
    if (l.learned) out.insert(l.name);
  return out;
}

std::set<std::string> declaring(const ModelConfig& cfg, const std::string& pin) {
  TrainableContext ctx;
  ctx.heads = cfg.heads;
  std::set<std::string> out;
  for (const Learnable& l :
       makeEncoding(cfg.family, resolvedFamilyParams(cfg, 64))->trainable(ctx)->learnables())
    if (l.learned && l.pin == pin) out.insert(l.name);
  return out;
}

TEST(PinDeclarations, EachPinHoldsExactlyTheTensorsThatDeclareIt) {
  int pins = 0;
  for (const FamilyInfo* f : allFamilies()) {
    const std::string& family = f->id;
    ModelConfig cfg;
    cfg.family = family;
    cfg.dModel = 96;  // head_dim 24: whole blocks of every order (2, 4, 6 and 8 reals)
    const std::set<std::string> all = learnedNames(cfg, {});
    for (const std::string& pin : learnedPinnables(cfg, 64)) {
      ++pins;
      const std::set<std::string> held = declaring(cfg, pin);
      ASSERT_FALSE(held.empty()) << family << " " << pin;
      std::set<std::string> expected;
      std::set_difference(all.begin(), all.end(), held.begin(), held.end(),
                          std::inserter(expected, expected.end()));
      EXPECT_EQ(learnedNames(cfg, {pin}), expected) << family << " pinned " << pin;
    }
  }
  EXPECT_GT(pins, 10);
}

TEST(PinDeclarations, WhatTheFamiliesLearn) {
  auto pinsOf = [](const std::string& family) {
    ModelConfig cfg;
    cfg.family = family;
    return learnedPinnables(cfg, 64);
  };
  EXPECT_EQ(pinsOf("rope"), std::vector<std::string>{});
  EXPECT_EQ(pinsOf("jordan-stabilized"), (std::vector<std::string>{"gamma", "eta"}));
  EXPECT_EQ(pinsOf("pope"), std::vector<std::string>{"delta"});
  EXPECT_EQ(pinsOf("pj-bias"),
            (std::vector<std::string>{"gates", "orders", "coefficients", "kappa", "slope"}));
}

// TrainableContext::checkStart is off unless asked for: the model and the pin listing take a start
// past the learned cap (eta = 0.5 against eta_max = 0.1, MATH 2.3) and start at 0.99 eta_max; only
// checkTrainableStart, which checks a user's setup, asks for the refusal.
TEST(PinDeclarations, OnlyTheStartCheckRefusesAStartPastTheCap) {
  ModelConfig cfg;
  cfg.family = "jordan-stabilized";
  cfg.familyParams["eta"] = 0.5;
  TrainableContext ctx;
  EXPECT_FALSE(ctx.checkStart);
  auto form = makeEncoding(cfg.family, resolvedFamilyParams(cfg, 64))->trainable(ctx);
  EXPECT_NO_THROW(form->learnables());
  EXPECT_EQ(learnedPinnables(cfg, 64), (std::vector<std::string>{"gamma", "eta"}));
  EXPECT_THROW(checkTrainableStart(cfg, 64), InvalidArgument);
  cfg.familyParams["eta"] = 0.1;  // at the cap: held (it starts at 0.099)
  EXPECT_NO_THROW(checkTrainableStart(cfg, 64));
}

}  // namespace
}  // namespace poslab
