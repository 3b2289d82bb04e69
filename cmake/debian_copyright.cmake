# cmake -DLICENSE=FILE -DUPLOT_LICENSE=FILE -DOUTPUT=FILE -P debian_copyright.cmake
# Writes the Debian package's copyright file in the machine-readable format: benchwatch under
# the MIT (Expat) licence of LICENSE, and uPlot, which the dashboard's page embedded in the
# binary carries, under its own.

# A licence text as the body of a "License:" field: each line indented by one space, an empty
# line written " .".
function(field_body text out)
  string(STRIP "${text}" text)
  string(REPLACE "\n" ";" lines "${text}")
  set(body "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "")
      string(APPEND body " .\n")
    else()
      string(APPEND body " ${line}\n")
    endif()
  endforeach()
  set(${out} "${body}" PARENT_SCOPE)
endfunction()

file(READ ${LICENSE} benchwatch_text)
file(READ ${UPLOT_LICENSE} uplot_text)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" uplot_line "${uplot_text}")
set(uplot_holder "${CMAKE_MATCH_1}")
# The licences' own titles and copyright lines are fields of their own.
string(REGEX REPLACE "^[^\n]*License[^\n]*\n+Copyright[^\n]*\n+" "" benchwatch_terms "${benchwatch_text}")
string(REGEX REPLACE "^[^\n]*License[^\n]*\n+Copyright[^\n]*\n+" "" uplot_terms "${uplot_text}")
field_body("${benchwatch_terms}" benchwatch_body)
field_body("${uplot_terms}" uplot_body)
file(WRITE ${OUTPUT} "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: benchwatch

Files: *
Copyright: 2026 the benchwatch authors
License: Expat
${benchwatch_body}
Files: usr/bin/benchwatch
Comment: The binary embeds the history dashboard's page, which includes uPlot.
Copyright: 2026 the benchwatch authors
           ${uplot_holder} (uPlot)
License: Expat
${uplot_body}")
