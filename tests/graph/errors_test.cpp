// InputError stays one line of valid UTF-8 whatever the names in the file hold.
#include "graph/errors.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(ClosestMatch, SuggestsOnlyNearNames) {
  constexpr std::string_view keys[] = {"conv_mode", "pre_padding", "post_padding", "stride", "dilation"};
  EXPECT_EQ(closest_match("conv_mod", keys), "conv_mode");
  EXPECT_EQ(closest_match("strdie", keys), "stride");
  EXPECT_EQ(closest_match("PRE_PADDING", keys), "pre_padding");
  EXPECT_EQ(closest_match("groups", keys), "");
  EXPECT_EQ(closest_match("x", {}), "");
}

TEST(PrintableText, EscapesControlCharactersAndInvalidUtf8) {
  EXPECT_EQ(printable_text("plain name"), "plain name");
  EXPECT_EQ(printable_text("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable_text(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(printable_text("\x1b[31mred"), "\\x1B[31mred");
  EXPECT_EQ(printable_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(printable_text("latin1 caf\xe9"), "latin1 caf\\xE9");         // a lone lead byte
  EXPECT_EQ(printable_text("\xc0\xaf"), "\\xC0\\xAF");                    // overlong '/'
  EXPECT_EQ(printable_text("\xed\xa0\x80"), "\\xED\\xA0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(printable_text("\xf4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(printable_text("cut \xe2\x82"), "cut \\xE2\\x82");            // truncated sequence
}

TEST(InputErrorText, IsOneLine) {
  const InputError e("dir/g\n.json", "tensors[0].name", "tensor 1 (\"x\ny\") is bad");
  EXPECT_EQ(std::string(e.what()), "dir/g\\n.json: at tensors[0].name: tensor 1 (\"x\\ny\") is bad");
  EXPECT_EQ(e.message(), "tensor 1 (\"x\\ny\") is bad");
  EXPECT_EQ(e.file(), "dir/g\\n.json");
}

TEST(InputErrorText, LongPartsAreCutOnACharacterBoundary) {
  const std::string name(3000, 'n');
  const InputError e("g.json", "", "unknown data type \"" + name + "\"");
  EXPECT_EQ(e.message(), "unknown data type \"" + std::string(981, 'n') + "... (2020 more characters)");
  std::string accents;
  for (int k = 0; k < 1000; ++k) accents += "\xc3\xa9";  // 2 bytes each
  const InputError f("g.json", "", "x" + accents);
  EXPECT_EQ(printable_text(f.message()), f.message());  // still valid UTF-8
  EXPECT_LT(f.message().size(), 1100u);
}

}  // namespace
}  // namespace dnnbench
