#pragma once
// Helpers shared by the reader and the op families: typed JSON reads that fail with the JSON
// path, error locations inside a node, tensor lookups by role, and shape predicates.
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "graph/ops/op_rules.hpp"

namespace dnnbench {

// The op families' rules (one definition per graph/ops/<family>.cpp); op_rules.cpp lists them.
extern const OpRules kConvFwdRules;
extern const OpRules kConvBwdDataRules;
extern const OpRules kConvBwdWeightsRules;
extern const OpRules kMatmulRules;
extern const OpRules kPointwiseRules;
extern const OpRules kBatchnormInferenceRules;
extern const OpRules kBatchnormInferenceVarianceExtRules;
extern const OpRules kBatchnormTrainingRules;
extern const OpRules kBatchnormBackwardRules;
extern const OpRules kLayernormRules;
extern const OpRules kRmsnormRules;
extern const OpRules kReductionRules;
extern const OpRules kResampleRules;
extern const OpRules kSdpaFwdRules;
extern const OpRules kSdpaBwdRules;

// ---- JSON reading -------------------------------------------------------------------------

// "a.b" (or "b" when `base` is empty); "a[3]".
std::string join_path(const std::string& base, std::string_view key);
std::string index_path(const std::string& base, std::size_t index);
// A short description of a JSON value for messages: `string "a"`, `number 1.5`, `null`, `an array`.
std::string describe_json(const nlohmann::json& value);

// Each throws InputError(file, path, "expected ..., got ...") when `value` has the wrong type.
std::int64_t json_int(const nlohmann::json& value, const std::string& file, const std::string& path);
double json_number(const nlohmann::json& value, const std::string& file, const std::string& path);
std::string json_string(const nlohmann::json& value, const std::string& file, const std::string& path);
bool json_bool(const nlohmann::json& value, const std::string& file, const std::string& path);
std::vector<std::int64_t> json_int_array(const nlohmann::json& value, const std::string& file,
                                         const std::string& path);
void expect_object(const nlohmann::json& value, const std::string& file, const std::string& path);

// The member `key` of `object`, or nullptr when absent. `object` must be a JSON object.
const nlohmann::json* find_member(const nlohmann::json& object, std::string_view key);
// Like find_member, but a JSON null counts as absent.
const nlohmann::json* find_non_null(const nlohmann::json& object, std::string_view key);
// The member `key`; throws "missing required key `key` (<what>)" at `object_path`.`key`.
const nlohmann::json& require_member(const nlohmann::json& object, std::string_view key,
                                     const std::string& file, const std::string& object_path,
                                     std::string_view what);

// Reads an enum spelled as one of `names` (case-insensitive); throws listing the valid names.
// Returns the index into `names`.
std::size_t json_choice(const nlohmann::json& value, std::initializer_list<std::string_view> names,
                        const std::string& file, const std::string& path, std::string_view what);

// ---- node settings ------------------------------------------------------------------------

// The key the node's settings sit under in its file ("parameters" or "attributes"); nodes built
// in memory get the key their type is usually written with.
std::string settings_key(const Node& node);
// Path of one setting inside the node ("parameters.stride"), and from the file root
// ("nodes[0].parameters.stride").
std::string settings_sub_path(const Node& node, std::string_view key);
std::string settings_path(const Node& node, const NodeContext& where, std::string_view key);
// The node's settings object (an empty object when the node has none).
const nlohmann::json& node_settings(const nlohmann::json& node_json, const Node& node);
// Reads an optional integer array setting (absent or null -> empty vector).
std::vector<std::int64_t> optional_int_array_setting(const nlohmann::json& node_json, const Node& node,
                                                     const NodeContext& where, std::string_view key);

// `forward_phase` of a norm (INFERENCE when absent); defined in layernorm.cpp.
NormPhase parse_norm_phase(const nlohmann::json& node_json, const Node& node, const NodeContext& where);

// ---- errors inside a node -----------------------------------------------------------------

// Throws InputError at `where.path` + "." + `sub_path` (or the node itself when empty).
[[noreturn]] void node_error(const NodeContext& where, const std::string& sub_path,
                             const std::string& message);
// "inputs.x_tensor_uid", or "inputs.peer_stats_tensor_uid[1]" for list roles ("peer_stats[1]").
std::string port_path(std::string_view direction, std::string_view role);

// ---- tensors by role ----------------------------------------------------------------------

// The tensor bound to an input / output role; throws "missing required input `x_tensor_uid`".
const TensorDesc& input_tensor(const Graph& graph, const Node& node, const NodeContext& where,
                               std::string_view role);
const TensorDesc& output_tensor(const Graph& graph, const Node& node, const NodeContext& where,
                                std::string_view role);
// nullptr when the role is absent.
const TensorDesc* optional_input(const Graph& graph, const Node& node, std::string_view role);
const TensorDesc* optional_output(const Graph& graph, const Node& node, std::string_view role);

// ---- shapes -------------------------------------------------------------------------------

std::string dims_string(const std::vector<std::int64_t>& dims);  // "[8, 64, 28, 28]"
// True when `from` broadcasts to `to` numpy-style: ranks aligned from the right, each dim of
// `from` equal to the matching dim of `to` or 1, and `from` no longer than `to`.
bool broadcasts_to(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to);
// Throws unless `t` has one of `ranks` dims.
void check_rank(const TensorDesc& t, std::initializer_list<std::size_t> ranks, const NodeContext& where,
                const std::string& sub_path, std::string_view role);
// Throws unless `actual` == `expected`, naming the role and both shapes.
void check_dims_equal(const TensorDesc& actual, const std::vector<std::int64_t>& expected,
                      const NodeContext& where, const std::string& sub_path, std::string_view role,
                      std::string_view why);
// epsilon-like inputs: a by-value scalar or a one-element tensor.
void check_scalar_input(const Graph& graph, const Node& node, const NodeContext& where,
                        std::string_view role);
// A per-spatial-dimension setting (stride, padding, window, ...): fills a missing one with
// `default_value`, checks a present one has `spatial` entries in [min_value, 2^31-1].
void check_spatial_setting(std::vector<std::int64_t>& values, std::string_view key,
                           std::int64_t default_value, std::int64_t min_value, std::size_t spatial,
                           const Node& node, const NodeContext& where);
// Product of dims as double (cost model: no overflow concerns at double precision).
double product_f(const std::vector<std::int64_t>& dims);

}  // namespace dnnbench
