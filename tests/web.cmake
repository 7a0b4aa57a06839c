# The browser page (web/, docs/WEB.md) built with emscripten and driven in
# headless Chromium, each view's numbers checked against this build's
# tlbsim: skipped (77) without emscripten or Chromium, a failure then under
# TLBSIM_TOOLS_REQUIRED=1 (CI). A first build of the page's libraries takes
# minutes; later runs rebuild tlbsim only.
add_test(NAME web_page COMMAND ${CMAKE_CURRENT_LIST_DIR}/web/run.sh $<TARGET_FILE:tlbsim> ${PROJECT_SOURCE_DIR}
  ${PROJECT_BINARY_DIR}/web)
set_tests_properties(web_page PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
