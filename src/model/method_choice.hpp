#pragma once

#include <any>
#include <cassert>
#include <string>
#include <string_view>
#include <utility>

namespace benchwatch::model {

// A judging method and the settings it was configured with. Which settings a method has is known
// only to the method itself (compare/): here they are one opaque value, so that a method is
// added without this layer, or any layer that only passes a choice on, knowing its settings.
class MethodChoice {
  public:
    // No method: what a comparison holds until a method is chosen for it.
    MethodChoice() = default;

    // The method called `name`, configured with `settings` (its own settings type).
    template <class Settings>
    MethodChoice(std::string name, Settings settings)
        : name_(std::move(name)), settings_(std::move(settings)) {}

    // "seed", "level", "samples"; empty when no method was chosen.
    const std::string& name() const { return name_; }

    // The settings when they are of type `Settings`; nullptr for another method's.
    template <class Settings>
    const Settings* settings_if() const {
        return std::any_cast<Settings>(&settings_);
    }

    // The settings when they are of type `Settings`, to change; nullptr for another method's.
    template <class Settings>
    Settings* settings_if() {
        return std::any_cast<Settings>(&settings_);
    }

    // The settings, which must be of type `Settings`: a method reading its own choice.
    template <class Settings>
    const Settings& settings() const {
        const auto* settings = settings_if<Settings>();
        assert(settings && "the settings are another method's");
        return *settings;
    }

    // The settings, which must be of type `Settings`, to change.
    template <class Settings>
    Settings& settings() {
        auto* settings = settings_if<Settings>();
        assert(settings && "the settings are another method's");
        return *settings;
    }

  private:
    std::string name_;
    std::any settings_;
};

}  // namespace benchwatch::model
