#include "state_dict_unpickler.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "checkpoint_format_error.h"
#include "torch_storage_type.h"

namespace tsserve::model::detail {
namespace {

namespace op {
constexpr uint8_t kProto = 0x80, kFrame = 0x95, kStop = '.', kMark = '(', kPop = '0',
                  kPopMark = '1', kEmptyDict = '}', kEmptyList = ']', kEmptyTuple = ')',
                  kTuple = 't', kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87, kAppend = 'a',
                  kAppends = 'e', kSetItem = 's', kSetItems = 'u', kBinUnicode = 'X',
                  kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d, kBinInt = 'J', kBinInt1 = 'K',
                  kBinInt2 = 'M', kLong1 = 0x8a, kBinFloat = 'G', kNone = 'N', kNewTrue = 0x88,
                  kNewFalse = 0x89, kGlobal = 'c', kStackGlobal = 0x93, kReduce = 'R', kBuild = 'b',
                  kNewObj = 0x81, kBinPut = 'q', kLongBinPut = 'r', kBinGet = 'h',
                  kLongBinGet = 'j', kMemoize = 0x94, kBinPersId = 'Q';
}  // namespace op

constexpr char kOrderedDict[] = "collections.OrderedDict";
constexpr char kRebuildTensorV2[] = "torch._utils._rebuild_tensor_v2";
constexpr char kRebuildParameter[] = "torch._utils._rebuild_parameter";

bool is_allowed_global(const std::string& name) {
  return name == kOrderedDict || name == kRebuildTensorV2 || name == kRebuildParameter ||
         storage_scalar_type(name).has_value();
}

class Unpickler {
 public:
  Unpickler(const std::string& source_name, const uint8_t* data, size_t size, PickleArena& arena,
            const PersistentLoader& load_persistent)
      : source_name_(source_name),
        data_(data),
        size_(size),
        arena_(arena),
        load_persistent_(load_persistent) {}

  PickleObject* run() {
    for (;;) {
      opcode_position_ = position_;
      const uint8_t opcode = read_u8();
      if (opcode == op::kStop) {
        if (stack_.empty()) fail("STOP with an empty stack");
        return stack_.back();
      }
      execute(opcode);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw CheckpointFormatError(source_name_ + " byte " + std::to_string(opcode_position_) + ": " +
                                problem);
  }

  // --- reading operands -------------------------------------------------------------
  const uint8_t* take(uint64_t count) {
    if (count > size_ - position_) {
      fail("truncated: the opcode needs " + std::to_string(count) + " more bytes but only " +
           std::to_string(size_ - position_) + " remain");
    }
    const uint8_t* bytes = data_ + position_;
    position_ += static_cast<size_t>(count);
    return bytes;
  }
  uint8_t read_u8() {
    if (position_ == size_) {
      fail("the pickle ends without a STOP opcode (truncated?)");
    }
    return data_[position_++];
  }
  uint64_t read_le(size_t width) {
    const uint8_t* bytes = take(width);
    uint64_t value = 0;
    for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[i]} << (8 * i);
    return value;
  }
  std::string read_string(uint64_t length) {
    const uint8_t* bytes = take(length);
    return std::string(reinterpret_cast<const char*>(bytes), static_cast<size_t>(length));
  }
  std::string read_line() {
    constexpr size_t kMaxLine = 256;
    const size_t start = position_;
    while (position_ < size_ && position_ - start < kMaxLine) {
      if (data_[position_] == '\n') {
        std::string line(reinterpret_cast<const char*>(data_ + start), position_ - start);
        ++position_;
        return line;
      }
      ++position_;
    }
    fail("GLOBAL name is not terminated by a newline within " + std::to_string(kMaxLine) +
         " bytes");
  }

  // --- the stack ----------------------------------------------------------------------
  void push(PickleObject* object) { stack_.push_back(object); }
  PickleObject* pop(const char* opcode_name) {
    if (stack_.size() <= stack_floor()) {
      fail(std::string(opcode_name) + " needs an object on the stack but there is none");
    }
    PickleObject* object = stack_.back();
    stack_.pop_back();
    return object;
  }
  PickleObject* top(const char* opcode_name) {
    if (stack_.size() <= stack_floor()) {
      fail(std::string(opcode_name) + " needs an object on the stack but there is none");
    }
    return stack_.back();
  }
  size_t stack_floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<PickleObject*> pop_to_mark(const char* opcode_name) {
    if (marks_.empty()) fail(std::string(opcode_name) + " without a preceding MARK");
    const size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<PickleObject*> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark),
                                     stack_.end());
    stack_.resize(mark);
    return items;
  }

  PickleObject* make(PickleKind kind) { return arena_.make(kind); }
  PickleObject* make_int(int64_t value) {
    PickleObject* object = make(PickleKind::kInt);
    object->integer = value;
    return object;
  }
  PickleObject* make_tuple(std::vector<PickleObject*> items) {
    PickleObject* tuple = make(PickleKind::kTuple);
    tuple->items = std::move(items);
    return tuple;
  }
  PickleObject* make_ordered_dict() {
    PickleObject* dict = make(PickleKind::kDict);
    dict->is_ordered_dict = true;
    return dict;
  }

  // --- the memo -----------------------------------------------------------------------
  void memo_put(uint64_t index) { memo_[index] = top("PUT"); }
  void memo_get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("GET of memo entry " + std::to_string(index) + ", never PUT");
    push(it->second);
  }

  // --- objects ------------------------------------------------------------------------
  void push_global(const std::string& module, const std::string& name) {
    const std::string full = module + "." + name;
    if (!is_allowed_global(full)) {
      fail("the pickle references the global " + quote(full) +
           ", which a state_dict never needs; only collections.OrderedDict, "
           "torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and the "
           "torch.*Storage types are allowed (a pickle can run arbitrary code, so it is "
           "not loaded)");
    }
    PickleObject* global = make(PickleKind::kGlobal);
    global->text = full;
    push(global);
  }

  void append(PickleObject* list, const std::vector<PickleObject*>& items, const char* name) {
    if (list->kind != PickleKind::kList) {
      fail(std::string(name) + " on " + describe(*list) + ", not a list");
    }
    list->items.insert(list->items.end(), items.begin(), items.end());
  }

  void set_items(PickleObject* dict, const std::vector<PickleObject*>& items, const char* name) {
    if (dict->kind != PickleKind::kDict) {
      fail(std::string(name) + " on " + describe(*dict) + ", not a dict");
    }
    if (items.size() % 2 != 0) fail(std::string(name) + " with an odd number of objects");
    for (size_t i = 0; i < items.size(); i += 2) dict_set(*dict, items[i], items[i + 1]);
  }

  std::vector<int64_t> int_sequence(const PickleObject& object, const char* what) const {
    if (object.kind != PickleKind::kTuple && object.kind != PickleKind::kList) {
      fail(std::string("_rebuild_tensor_v2: the ") + what + " is " + describe(object) +
           ", not a tuple of ints");
    }
    std::vector<int64_t> values;
    values.reserve(object.items.size());
    for (const PickleObject* item : object.items) {
      if (item->kind != PickleKind::kInt) {
        fail(std::string("_rebuild_tensor_v2: the ") + what + " holds " + describe(*item) +
             ", not an int");
      }
      values.push_back(item->integer);
    }
    return values;
  }

  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  //                    backward_hooks[, metadata]); requires_grad, hooks and metadata do
  // not affect the values, so they are ignored.
  PickleObject* rebuild_tensor(const PickleObject& args) {
    if (args.items.size() != 6 && args.items.size() != 7) {
      fail("_rebuild_tensor_v2 called with " + std::to_string(args.items.size()) +
           " arguments; expected 6 or 7");
    }
    const PickleObject& storage = *args.items[0];
    const PickleObject& offset = *args.items[1];
    if (storage.kind != PickleKind::kStorage) {
      fail("_rebuild_tensor_v2: the first argument is " + describe(storage) + ", not a storage");
    }
    if (offset.kind != PickleKind::kInt) {
      fail("_rebuild_tensor_v2: the storage offset is " + describe(offset) + ", not an int");
    }
    PickleObject* tensor = make(PickleKind::kTensor);
    tensor->tensor = std::make_unique<TensorView>();
    tensor->tensor->storage = &storage;
    tensor->tensor->offset = offset.integer;
    tensor->tensor->sizes = int_sequence(*args.items[2], "size");
    tensor->tensor->strides = int_sequence(*args.items[3], "stride");
    return tensor;
  }

  PickleObject* call(const PickleObject& callable, const PickleObject& args) {
    if (callable.kind != PickleKind::kGlobal) {
      fail("REDUCE calls " + describe(callable) + ", not a global");
    }
    if (args.kind != PickleKind::kTuple) {
      fail("REDUCE arguments are " + describe(args) + ", not a tuple");
    }
    if (callable.text == kOrderedDict) {
      if (!args.items.empty()) fail("collections.OrderedDict called with arguments");
      return make_ordered_dict();
    }
    if (callable.text == kRebuildTensorV2) return rebuild_tensor(args);
    if (callable.text == kRebuildParameter) {
      // _rebuild_parameter(data, requires_grad, backward_hooks): the parameter's data.
      if (args.items.size() != 3 || args.items[0]->kind != PickleKind::kTensor) {
        fail("_rebuild_parameter expects (tensor, requires_grad, backward_hooks)");
      }
      return args.items[0];
    }
    fail("calling " + callable.text + " is not supported");
  }

  void execute(uint8_t opcode) {
    switch (opcode) {
      case op::kProto: {
        const uint8_t version = read_u8();
        if (version > 5) fail("unsupported pickle protocol " + std::to_string(version));
        break;
      }
      case op::kFrame:
        read_le(8);  // frames only group opcodes for buffering; the content is read as is
        break;
      case op::kMark:
        marks_.push_back(stack_.size());
        break;
      case op::kPop:
        if (!marks_.empty() && marks_.back() == stack_.size()) {
          marks_.pop_back();  // Python's POP discards a mark on top of the stack
        } else {
          pop("POP");
        }
        break;
      case op::kPopMark:
        pop_to_mark("POP_MARK");
        break;
      case op::kEmptyDict:
        push(make(PickleKind::kDict));
        break;
      case op::kEmptyList:
        push(make(PickleKind::kList));
        break;
      case op::kEmptyTuple:
        push(make(PickleKind::kTuple));
        break;
      case op::kTuple:
        push(make_tuple(pop_to_mark("TUPLE")));
        break;
      case op::kTuple1:
      case op::kTuple2:
      case op::kTuple3: {
        const size_t count = size_t{opcode} - op::kTuple1 + 1;
        std::vector<PickleObject*> items(count);
        for (size_t i = count; i-- > 0;) items[i] = pop("TUPLE1/2/3");
        push(make_tuple(std::move(items)));
        break;
      }
      case op::kAppend: {
        PickleObject* item = pop("APPEND");
        append(top("APPEND"), {item}, "APPEND");
        break;
      }
      case op::kAppends: {
        std::vector<PickleObject*> items = pop_to_mark("APPENDS");
        append(top("APPENDS"), items, "APPENDS");
        break;
      }
      case op::kSetItem: {
        PickleObject* value = pop("SETITEM");
        PickleObject* key = pop("SETITEM");
        set_items(top("SETITEM"), {key, value}, "SETITEM");
        break;
      }
      case op::kSetItems: {
        std::vector<PickleObject*> items = pop_to_mark("SETITEMS");
        set_items(top("SETITEMS"), items, "SETITEMS");
        break;
      }
      case op::kBinUnicode:
      case op::kShortBinUnicode:
      case op::kBinUnicode8: {
        const size_t width = opcode == op::kBinUnicode ? 4 : opcode == op::kBinUnicode8 ? 8 : 1;
        PickleObject* text = make(PickleKind::kString);
        text->text = read_string(read_le(width));
        push(text);
        break;
      }
      case op::kBinInt:
        push(make_int(static_cast<int32_t>(static_cast<uint32_t>(read_le(4)))));
        break;
      case op::kBinInt1:
        push(make_int(static_cast<int64_t>(read_le(1))));
        break;
      case op::kBinInt2:
        push(make_int(static_cast<int64_t>(read_le(2))));
        break;
      case op::kLong1: {
        const size_t width = read_u8();
        if (width > 8) fail("integer of " + std::to_string(width) + " bytes is too large");
        uint64_t value = read_le(width);
        if (width > 0 && width < 8 && (value >> (8 * width - 1)) != 0) {
          value |= ~uint64_t{0} << (8 * width);  // sign-extend a negative value
        }
        push(make_int(static_cast<int64_t>(value)));
        break;
      }
      case op::kBinFloat: {
        const uint8_t* bytes = take(8);
        uint64_t bits = 0;
        for (size_t i = 0; i < 8; ++i) bits = (bits << 8) | bytes[i];  // big-endian
        PickleObject* real = make(PickleKind::kFloat);
        std::memcpy(&real->real, &bits, sizeof bits);
        push(real);
        break;
      }
      case op::kNone:
        push(make(PickleKind::kNone));
        break;
      case op::kNewTrue:
      case op::kNewFalse: {
        PickleObject* flag = make(PickleKind::kBool);
        flag->boolean = opcode == op::kNewTrue;
        push(flag);
        break;
      }
      case op::kGlobal: {
        std::string module = read_line();
        std::string name = read_line();
        push_global(module, name);
        break;
      }
      case op::kStackGlobal: {
        PickleObject* name = pop("STACK_GLOBAL");
        PickleObject* module = pop("STACK_GLOBAL");
        if (name->kind != PickleKind::kString || module->kind != PickleKind::kString) {
          fail("STACK_GLOBAL needs two str objects");
        }
        push_global(module->text, name->text);
        break;
      }
      case op::kReduce: {
        PickleObject* args = pop("REDUCE");
        PickleObject* callable = pop("REDUCE");
        push(call(*callable, *args));
        break;
      }
      case op::kNewObj: {
        PickleObject* args = pop("NEWOBJ");
        PickleObject* cls = pop("NEWOBJ");
        if (cls->kind != PickleKind::kGlobal || cls->text != kOrderedDict ||
            args->kind != PickleKind::kTuple || !args->items.empty()) {
          fail("NEWOBJ is only supported for collections.OrderedDict()");
        }
        push(make_ordered_dict());
        break;
      }
      case op::kBuild: {
        PickleObject* state = pop("BUILD");
        PickleObject* object = top("BUILD");
        // model.state_dict() is an OrderedDict whose `_metadata` attribute (module
        // versions) arrives through BUILD; it does not affect the tensors.
        if (object->kind != PickleKind::kDict) {
          fail("BUILD on " + describe(*object) + " is not supported");
        }
        (void)state;
        break;
      }
      case op::kBinPut:
        memo_put(read_le(1));
        break;
      case op::kLongBinPut:
        memo_put(read_le(4));
        break;
      case op::kMemoize:
        memo_put(memo_.size());
        break;
      case op::kBinGet:
        memo_get(read_le(1));
        break;
      case op::kLongBinGet:
        memo_get(read_le(4));
        break;
      case op::kBinPersId: {
        PickleObject* persistent_id = pop("BINPERSID");
        push(load_persistent_(*persistent_id));
        break;
      }
      default: {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", opcode);
        std::string shown = hex;
        if (opcode >= 0x20 && opcode < 0x7f) shown += std::string(" '") + char(opcode) + "'";
        fail("unsupported pickle opcode " + shown + " (not one torch.save uses for a state_dict)");
      }
    }
  }

  const std::string& source_name_;
  const uint8_t* data_;
  size_t size_;
  PickleArena& arena_;
  const PersistentLoader& load_persistent_;

  size_t position_ = 0;
  size_t opcode_position_ = 0;
  std::vector<PickleObject*> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleObject*> memo_;
};

}  // namespace

PickleObject* unpickle_state_dict(const std::string& source_name, const uint8_t* data, size_t size,
                                  PickleArena& arena, const PersistentLoader& load_persistent) {
  return Unpickler(source_name, data, size, arena, load_persistent).run();
}

}  // namespace tsserve::model::detail
