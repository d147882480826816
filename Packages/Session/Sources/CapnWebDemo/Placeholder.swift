enum CapnWebDemoPlaceholder {}
