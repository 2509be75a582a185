// The reader's guard against deep nesting, and the byte-level oddities it accepts.
#include <gtest/gtest.h>

#include "graph/errors.hpp"
#include "graph/reader.hpp"

namespace dnnbench {
namespace {

constexpr const char* kGraph =
    R"({"name": "g", "tensors": [{"uid": 1, "name": "x", "dims": [2]}, {"uid": 2, "name": "y", "dims": [2]}],
        "nodes": [{"type": "PointwiseAttributes", "inputs": {"operation": "relu_fwd", "in_0_tensor_uid": 1},
                   "outputs": {"out_0_tensor_uid": 2}}]})";

// kGraph with `"junk": <depth nested arrays>` added at the top level.
std::string with_junk(int depth) {
  std::string text = kGraph;
  text.pop_back();
  return text + ", \"junk\": " + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
}

TEST(Nesting, SixtyFourLevelsAreReadAndSixtyFiveRefusedWithThePlace) {
  EXPECT_NO_THROW(parse_graph_json(with_junk(64), "g.json"));  // the top-level object is level 1
  const std::string text = with_junk(65);
  // The 64th '[' of the junk is the 65th level.
  const std::size_t offset = text.find("\"junk\": ") + 8 + 63;
  const std::size_t column = offset - (text.rfind('\n', offset) + 1) + 1;
  try {
    parse_graph_json(text, "g.json");
    ADD_FAILURE() << "65 levels were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "");
    EXPECT_EQ(e.message(),
              "invalid JSON at line 3, column " + std::to_string(column) +
                  ": arrays and objects nested more than 64 levels deep; a graph file nests about 5");
  }
}

TEST(Nesting, BracketsInsideStringsDoNotCount) {
  std::string text = kGraph;
  text.pop_back();
  text += ", \"note\": \"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  EXPECT_NO_THROW(parse_graph_json(text, "g.json"));
}

TEST(Nesting, HundredThousandLevelsAreRefusedQuickly) {
  std::string text = "{\"name\": \"g\", \"junk\": " + std::string(100000, '[');
  EXPECT_THROW(parse_graph_json(text, "g.json"), InputError);
}

TEST(ByteOddities, Utf8ByteOrderMarkIsSkipped) {
  EXPECT_EQ(parse_graph_json(std::string("\xEF\xBB\xBF") + kGraph, "g.json").name, "g");
}

TEST(ByteOddities, DuplicateKeysTakeTheLastValue) {
  std::string text = kGraph;
  text.pop_back();
  EXPECT_EQ(parse_graph_json(text + ", \"name\": \"second\"}", "g.json").name, "second");
}

}  // namespace
}  // namespace dnnbench
