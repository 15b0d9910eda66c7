# cmake -DPROGRAM=... -DARGUMENTS=a,b -DOUTPUT=file -P SiltWriteCommandOutput.cmake
# Runs PROGRAM with ARGUMENTS (comma-separated) and writes its standard output to OUTPUT, which
# appears only when the program succeeds.
string(REPLACE "," ";" arguments "${ARGUMENTS}")
execute_process(COMMAND "${PROGRAM}" ${arguments}
  OUTPUT_FILE "${OUTPUT}.tmp"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${OUTPUT}.tmp")
  message(FATAL_ERROR "${PROGRAM} ${arguments} failed: ${status}")
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
