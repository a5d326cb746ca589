// The learned position parameters of a trained model as the reports show them (docs/MATH.md 2.3):
// one snapshot per layer (TrainableForm::snapshot) and, by default, their mean over layers, as the
// PJ-RoPE reference's summary of a trained model (gates and masses averaged over the blocks).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace poslab {

// Parameter name -> values (per head, per head and block, or one value), as a layer reports them.
using PositionParameters = std::map<std::string, std::vector<double>>;

// Entry-wise mean over the layers: out[name][i] = mean over layers l of layers[l][name][i].
// Empty for no layers. Throws InvalidArgument when the layers disagree in names or lengths (every
// layer of a model has the same family and shapes).
PositionParameters meanOverLayers(const std::vector<PositionParameters>& layers);

}  // namespace poslab
