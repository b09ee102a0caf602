// Informer and Transformer against the independent PyTorch reference (tests/reference/
// encdec_reference.py, checked against TSLib's own classes when it was written), loaded from
// TSLib-style checkpoints through load_encoder_decoder: distil on and off, 1-3 encoder and
// 1-2 decoder layers, timeF / fixed / learned marks, features M / S / MS, ProbSparse with
// every query active (TSLib's answer whatever its sample) and with the deterministic sample
// in both context layouts, Full attention. The marks go through tsserve's own time_marks,
// computed from the fixtures' Unix timestamps.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "reference_fixture.h"
#include "tsserve/model/encoder_decoder.h"
#include "tsserve/model/encoder_decoder_checkpoint.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::testing::encdec {
namespace {

using namespace tsserve::model;
using ::testing::HasSubstr;

std::string checkpoint_of(const std::string& case_name) {
  return fixture_dir() + "/encdec/" + case_name + ".pt";
}

const std::string kPatchTSTCheckpoint =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt";

std::string encdec_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

// [B, seq_len + pred_len, C] from the fixture's timestamps, by tsserve's time_marks.
at::Tensor marks_from_timestamps(const EncoderDecoder& model, const ReferenceFixture& fixture) {
  const at::Tensor stamps = fixture.input("timestamps").contiguous();
  std::vector<at::Tensor> samples;
  for (int64_t b = 0; b < stamps.size(0); ++b) {
    const at::Tensor row = stamps[b].contiguous();
    const std::vector<int64_t> seconds(row.data_ptr<int64_t>(),
                                       row.data_ptr<int64_t>() + row.numel());
    const std::vector<float> marks =
        time_marks(model->config().embed, model->config().freq, seconds);
    samples.push_back(at::tensor(marks, at::kFloat).view({row.numel(), model->mark_width()}));
  }
  return at::stack(samples);
}

at::Tensor series_of(const ReferenceFixture& fixture) {
  return fixture.input("x_enc").transpose(1, 2).contiguous();  // [B, N, T]
}

class EncoderDecoderParity : public ::testing::TestWithParam<std::string> {
 protected:
  ReferenceFixture fixture_ = load_reference_fixture("encdec_" + GetParam());
  EncoderDecoder model_ = load_encoder_decoder(checkpoint_of(GetParam()));
};

TEST_P(EncoderDecoderParity, TslibForwardMatchesReference) {
  at::InferenceMode guard;
  const at::Tensor out = model_->forward(fixture_.input("x_enc"), fixture_.input("x_mark_enc"),
                                         fixture_.input("x_dec"), fixture_.input("x_mark_dec"));
  EXPECT_TRUE(matches_reference(out, fixture_.output("forecast")));
}

TEST_P(EncoderDecoderParity, MarksFromTimestampsEqualTslibLoadersBitwise) {
  EXPECT_TRUE(at::equal(marks_from_timestamps(model_, fixture_), fixture_.input("marks")));
}

TEST_P(EncoderDecoderParity, ServedForecastAndEveryAttentionMapMatchReference) {
  at::InferenceMode guard;
  const EncoderDecoderForecast out =
      model_->forecast_samples(series_of(fixture_), marks_from_timestamps(model_, fixture_), true);
  const ModelConfig& config = model_->config();
  ASSERT_EQ(out.forecast.size(1), model_->output_variables());
  EXPECT_TRUE(matches_reference(out.forecast, fixture_.output("served")));

  const std::vector<int64_t> lengths = model_->encoder_lengths();
  ASSERT_EQ(static_cast<int64_t>(lengths.size()), config.e_layers);
  ASSERT_EQ(static_cast<int64_t>(out.encoder_attention.size()), config.e_layers);
  for (size_t i = 0; i < out.encoder_attention.size(); ++i) {
    EXPECT_EQ(out.encoder_attention[i].size(2), lengths[i]) << "encoder layer " << i;
    EXPECT_TRUE(matches_reference(out.encoder_attention[i],
                                  fixture_.output("encoder_attention." + std::to_string(i))))
        << "encoder layer " << i;
  }
  const int64_t decoder_length = config.label_len + config.pred_len;
  ASSERT_EQ(static_cast<int64_t>(out.decoder_attention.size()), config.d_layers);
  ASSERT_EQ(static_cast<int64_t>(out.cross_attention.size()), config.d_layers);
  for (size_t i = 0; i < out.decoder_attention.size(); ++i) {
    const std::string layer = std::to_string(i);
    EXPECT_EQ(out.decoder_attention[i].size(3), decoder_length);
    EXPECT_EQ(out.cross_attention[i].size(2), decoder_length);
    EXPECT_EQ(out.cross_attention[i].size(3), model_->encoder_output_length());
    EXPECT_TRUE(
        matches_reference(out.decoder_attention[i], fixture_.output("decoder_attention." + layer)))
        << "decoder layer " << i;
    EXPECT_TRUE(
        matches_reference(out.cross_attention[i], fixture_.output("cross_attention." + layer)))
        << "decoder layer " << i;
  }
}

// What the server does: each request alone, or requests batched together.
TEST_P(EncoderDecoderParity, SampleAloneEqualsSampleInBatchBitwise) {
  const at::Tensor series = series_of(fixture_);
  const at::Tensor marks = marks_from_timestamps(model_, fixture_);
  at::InferenceMode guard;
  const EncoderDecoderForecast batched = model_->forecast_samples(series, marks, true);
  for (int64_t b = 0; b < series.size(0); ++b) {
    const EncoderDecoderForecast alone =
        model_->forecast_samples(series.narrow(0, b, 1), marks.narrow(0, b, 1), true);
    EXPECT_TRUE(at::equal(alone.forecast[0], batched.forecast[b])) << "sample " << b;
    for (size_t i = 0; i < alone.cross_attention.size(); ++i) {
      EXPECT_TRUE(at::equal(alone.cross_attention[i][0], batched.cross_attention[i][b]));
    }
  }
  // Without maps the forecast is the same too.
  EXPECT_TRUE(at::equal(model_->forecast_samples(series, marks, false).forecast, batched.forecast));
}

TEST_P(EncoderDecoderParity, EncodeRunsEachSequenceAloneAndShrinksWithDistil) {
  torch::manual_seed(3);
  const at::Tensor tokens = torch::randn({3, model_->config().seq_len, model_->config().d_model});
  at::InferenceMode guard;
  const EncoderOutput batched = model_->encode(tokens, {}, true);
  EXPECT_EQ(batched.output.size(1), model_->encoder_output_length());
  ASSERT_EQ(static_cast<int64_t>(batched.weights.size()), model_->config().e_layers);
  for (int64_t b = 0; b < tokens.size(0); ++b) {
    EXPECT_TRUE(at::equal(model_->encode(tokens.narrow(0, b, 1)).output[0], batched.output[b]));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, EncoderDecoderParity,
                         ::testing::Values("inf_distil_timef_t_all_active",
                                           "inf_nodistil_fixed_s_all_active",
                                           "inf_sampled_fixed_t_ms",
                                           "inf_sampled_canonical_learned", "tr_fixed_m",
                                           "tr_timef_ms"));

TEST(EncoderDecoderCheckpoint, DataParallelPrefixIsStripped) {
  EncoderDecoder model = load_encoder_decoder(checkpoint_of("inf_distil_parallel"));
  const ReferenceFixture fixture = load_reference_fixture("encdec_inf_distil_timef_t_all_active");
  at::InferenceMode guard;
  EXPECT_TRUE(matches_reference(model->forward(fixture.input("x_enc"), fixture.input("x_mark_enc"),
                                               fixture.input("x_dec"), fixture.input("x_mark_dec")),
                                fixture.output("forecast")));
}

TEST(EncoderDecoderCheckpoint, InformerDefaultsAndLengths) {
  const EncoderDecoder model = load_encoder_decoder(checkpoint_of("inf_distil_timef_t_all_active"));
  const ModelConfig& config = model->config();
  EXPECT_EQ(config.family, "Informer");
  EXPECT_EQ(config.attention, AttentionKind::kProb);
  EXPECT_EQ(config.prob_layout, ProbLayout::kTslib);
  EXPECT_TRUE(config.distil);
  EXPECT_EQ(model->mark_width(), 5);  // timeF "t": minute, hour, weekday, day, day of year
  EXPECT_EQ(model->encoder_lengths(), (std::vector<int64_t>{32, 17, 10}));
  EXPECT_THAT(config.summary(), HasSubstr("model=Informer seq_len=32 label_len=16 pred_len=8"));
  EXPECT_THAT(config.summary(), HasSubstr("d_layers=2"));
  EXPECT_THAT(config.summary(), HasSubstr("features=M embed=timeF freq=t (5 mark columns)"));
}

TEST(EncoderDecoderMarks, TimeMarksEqualTslibLoadersForEveryEncodingBitwise) {
  const ReferenceFixture fixture = load_reference_fixture("encdec_marks");
  const at::Tensor stamps = fixture.input("timestamps").contiguous();
  const std::vector<int64_t> seconds(stamps.data_ptr<int64_t>(),
                                     stamps.data_ptr<int64_t>() + stamps.numel());
  for (const auto& [name, expected] : fixture.outputs) {
    const auto split = name.find('_');
    const std::string embed = name.substr(0, split);
    const std::string freq = name.substr(split + 1);
    const std::vector<float> marks = time_marks(embed, freq, seconds);
    ASSERT_EQ(mark_width(embed, freq), expected.size(1)) << name;
    EXPECT_TRUE(at::equal(at::tensor(marks, at::kFloat).view(expected.sizes()), expected)) << name;
  }
  EXPECT_EQ(mark_names("fixed", "15min"),
            (std::vector<std::string>{"month", "day", "weekday", "hour", "minute"}));
  EXPECT_EQ(mark_names("timeF", "h"),
            (std::vector<std::string>{"HourOfDay", "DayOfWeek", "DayOfMonth", "DayOfYear"}));
}

// ---------------------------------------------------------------- refused configs and files

std::string encdec_json(const std::string& model, const std::string& extra) {
  return R"({"model": ")" + model + R"(", "seq_len": 24, "label_len": 12, "pred_len": 8,
             "enc_in": 3, "d_model": 16, "n_heads": 4, "e_layers": 2, "d_ff": 32)" +
         extra + "}";
}

std::string informer_json(const std::string& extra) { return encdec_json("Informer", extra); }

std::string config_error(const std::string& json) {
  return encdec_error_of([&] { parse_model_config(json, "m.json"); });
}

TEST(EncoderDecoderConfig, LabelLenLongerThanSeqLenNamesBoth) {
  const std::string error = config_error(informer_json(R"(, "label_len": 30)"));
  EXPECT_THAT(error, HasSubstr("'label_len' (30)"));
  EXPECT_THAT(error, HasSubstr("'seq_len' (24)"));
}

TEST(EncoderDecoderConfig, LabelLenIsRequired) {
  const std::string error = config_error(
      R"({"model": "Transformer", "seq_len": 24, "pred_len": 8, "enc_in": 3, "d_model": 16,
          "n_heads": 4, "e_layers": 2, "d_ff": 32})");
  EXPECT_THAT(error, HasSubstr("'label_len' is required"));
}

TEST(EncoderDecoderConfig, FixedEmbeddingWithSecondsNamesEmbedAndFreq) {
  const std::string error = config_error(informer_json(R"(, "embed": "fixed", "freq": "s")"));
  EXPECT_THAT(error, HasSubstr("'embed' \"fixed\""));
  EXPECT_THAT(error, HasSubstr("'freq' must be \"t\"/\"min\", \"h\""));
  EXPECT_THAT(error, HasSubstr("got \"s\""));
  EXPECT_THAT(config_error(informer_json(R"(, "embed": "sinusoid")")),
              HasSubstr("'embed' must be one of \"timeF\", \"fixed\", \"learned\""));
}

TEST(EncoderDecoderConfig, DistilOnATransformerIsRefused) {
  EXPECT_THAT(config_error(encdec_json("Transformer", R"(, "distil": true)")),
              HasSubstr("'distil' must be false for a Transformer"));
}

TEST(EncoderDecoderConfig, FeaturesSNeedsOneVariableAndDecInMustEqualEncIn) {
  EXPECT_THAT(config_error(informer_json(R"(, "features": "S")")), HasSubstr("'features' \"S\""));
  EXPECT_THAT(config_error(informer_json(R"(, "dec_in": 4)")),
              HasSubstr("'dec_in' (4) must equal 'enc_in' (3)"));
  EXPECT_THAT(config_error(informer_json(R"(, "features": "X")")), HasSubstr("'features'"));
}

TEST(EncoderDecoderConfig, DefaultsPerFamily) {
  const ModelConfig informer = parse_model_config(informer_json(""), "m.json");
  EXPECT_EQ(informer.attention, AttentionKind::kProb);
  EXPECT_EQ(informer.prob_layout, ProbLayout::kTslib);
  EXPECT_TRUE(informer.distil);
  EXPECT_EQ(informer.d_layers, 1);
  EXPECT_EQ(informer.dec_in, 3);
  EXPECT_EQ(informer.c_out, 3);
  EXPECT_EQ(informer.mark_width(), 4);
  const ModelConfig transformer =
      parse_model_config(encdec_json("Transformer", R"(, "features": "MS")"), "m.json");
  EXPECT_EQ(transformer.attention, AttentionKind::kFull);
  EXPECT_FALSE(transformer.distil);
  EXPECT_EQ(transformer.output_variables(), 1);
  EXPECT_EQ(transformer.family, "Transformer");
}

TEST(EncoderDecoderCheckpoint, PatchTSTConfigAtInformerCheckpointNamesKeyAndModel) {
  const ModelConfig config =
      load_model_config(std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.json");
  const std::string error = encdec_error_of(
      [&] { load_patchtst(checkpoint_of("inf_distil_timef_t_all_active"), config, "p.json"); });
  EXPECT_THAT(error, HasSubstr("its keys are Informer's"));
  EXPECT_THAT(error, HasSubstr("'encoder.conv_layers.0.downConv.weight'"));
  EXPECT_THAT(error, HasSubstr("the config's \"model\" is \"PatchTST\""));
  // Without distilling, the decoder's embedding names the pair of families.
  const std::string plain =
      encdec_error_of([&] { load_patchtst(checkpoint_of("tr_fixed_m"), config, "p.json"); });
  EXPECT_THAT(plain, HasSubstr("'dec_embedding.value_embedding.tokenConv.weight'"));
  EXPECT_THAT(plain, HasSubstr("set \"model\": \"Informer\" or \"Transformer\""));
}

TEST(EncoderDecoderCheckpoint, InformerConfigAtPatchTSTCheckpointNamesKeyAndModel) {
  const ModelConfig config =
      load_model_config(fixture_dir() + "/encdec/inf_distil_timef_t_all_active.json");
  const std::string error =
      encdec_error_of([&] { load_encoder_decoder(kPatchTSTCheckpoint, config, "i.json"); });
  EXPECT_THAT(error, HasSubstr("its keys are PatchTST's"));
  EXPECT_THAT(error, HasSubstr("'patch_embedding.value_embedding.weight'"));
  EXPECT_THAT(error, HasSubstr("the config's \"model\" is \"Informer\""));
}

TEST(EncoderDecoderCheckpoint, TransformerConfigAtDistillingInformerNamesKeyAndModel) {
  ModelConfig config =
      load_model_config(fixture_dir() + "/encdec/inf_distil_timef_t_all_active.json");
  config.family = "Transformer";
  config.distil = false;
  const std::string error = encdec_error_of([&] {
    load_encoder_decoder(checkpoint_of("inf_distil_timef_t_all_active"), config, "t.json");
  });
  EXPECT_THAT(error, HasSubstr("its keys are Informer's"));
  EXPECT_THAT(error, HasSubstr("the config's \"model\" is \"Transformer\""));
}

TEST(EncoderDecoderCheckpoint, DistilDisagreeingWithKeysNamesDistil) {
  ModelConfig config =
      load_model_config(fixture_dir() + "/encdec/inf_distil_timef_t_all_active.json");
  config.distil = false;
  EXPECT_THAT(encdec_error_of([&] {
                load_encoder_decoder(checkpoint_of("inf_distil_timef_t_all_active"), config);
              }),
              HasSubstr("the config's 'distil' is false"));
  ModelConfig informer = load_model_config(fixture_dir() + "/encdec/tr_fixed_m.json");
  informer.family = "Informer";
  informer.distil = true;
  EXPECT_THAT(encdec_error_of([&] { load_encoder_decoder(checkpoint_of("tr_fixed_m"), informer); }),
              HasSubstr("the config's 'distil' is true (e_layers=2) but the checkpoint has no "
                        "distilling layers"));
}

TEST(EncoderDecoderCheckpoint, SizesDisagreeingWithWeightsNameKeyAndFields) {
  ModelConfig config = load_model_config(fixture_dir() + "/encdec/tr_fixed_m.json");
  config.c_out = 5;
  EXPECT_THAT(encdec_error_of([&] { load_encoder_decoder(checkpoint_of("tr_fixed_m"), config); }),
              HasSubstr("'decoder.projection.weight' has shape [3, 16] but the config's c_out=5"));
  config.c_out = 3;
  config.d_layers = 4;
  EXPECT_THAT(encdec_error_of([&] { load_encoder_decoder(checkpoint_of("tr_fixed_m"), config); }),
              HasSubstr("missing key 'decoder.layers.1.self_attention.query_projection.weight'"));
  config.d_layers = 1;
  config.enc_in = config.dec_in = config.c_out = 4;
  EXPECT_THAT(encdec_error_of([&] { load_encoder_decoder(checkpoint_of("tr_fixed_m"), config); }),
              HasSubstr("'enc_embedding.value_embedding.tokenConv.weight' has shape [16, 3, 3] but "
                        "the config's d_model=16, enc_in=4"));
  config.enc_in = config.dec_in = config.c_out = 3;
  config.embed = "timeF";
  EXPECT_THAT(encdec_error_of([&] { load_encoder_decoder(checkpoint_of("tr_fixed_m"), config); }),
              HasSubstr("missing key 'enc_embedding.temporal_embedding.embed.weight'"));
}

TEST(EncoderDecoderInputs, WrongShapesAreRefusedByName) {
  EncoderDecoder model = load_encoder_decoder(checkpoint_of("tr_fixed_m"));
  at::InferenceMode guard;
  EXPECT_THAT(encdec_error_of([&] {
                model->forecast_samples(torch::zeros({2, 3, 35}), torch::zeros({2, 48, 4}));
              }),
              HasSubstr("expects series [samples, 3 variables (enc_in), 36 steps (seq_len)]"));
  EXPECT_THAT(encdec_error_of([&] {
                model->forecast_samples(torch::zeros({2, 3, 36}), torch::zeros({2, 36, 4}));
              }),
              HasSubstr("expects marks [2, 48 steps (seq_len + pred_len), 4 columns"));
  at::Tensor marks = torch::zeros({1, 48, 4});
  marks[0][5][3] = 24;  // hour 24: beyond the hour table
  EXPECT_THAT(encdec_error_of([&] {
                model->forecast_samples(torch::zeros({1, 3, 36}), marks);
              }),
              HasSubstr("time mark column 3 ('hour') holds 24"));
}

}  // namespace
}  // namespace tsserve::testing::encdec
