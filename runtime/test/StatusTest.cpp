//===- StatusTest.cpp - Status codes and messages -------------------------===//

#include "vmapc/Status.h"

#include <gtest/gtest.h>

using namespace vmapc;

namespace {

TEST(Status, OkHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_TRUE(s.withPrefix("x: ").ok());
  EXPECT_TRUE(s.withCode(StatusCode::kDataLoss).ok());
}

TEST(Status, ErrorsKeepTheirCodeThroughPrefixes) {
  Status s = Status::error(StatusCode::kNotFound, "no such entry");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  Status p = s.withPrefix("a.vmapc: ");
  EXPECT_EQ(p.message(), "a.vmapc: no such entry");
  EXPECT_EQ(p.code(), StatusCode::kNotFound);
  Status c = p.withCode(StatusCode::kDataLoss);
  EXPECT_EQ(c.code(), StatusCode::kDataLoss);
  EXPECT_EQ(c.message(), p.message());
}

TEST(Status, AnErrorIsNeverOk) {
  Status s = Status::error(StatusCode::kOk, "wrong");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInternal);
}

TEST(Status, CodeNames) {
  EXPECT_STREQ(statusCodeName(StatusCode::kOk), "ok");
  EXPECT_STREQ(statusCodeName(StatusCode::kInvalidArgument),
               "invalid argument");
  EXPECT_STREQ(statusCodeName(StatusCode::kResourceExhausted),
               "resource exhausted");
  EXPECT_STREQ(statusCodeName(StatusCode::kDataLoss), "data loss");
  EXPECT_STREQ(statusCodeName(StatusCode(42)), "unknown code");
}

} // namespace
