#!/bin/bash
# tensorflow/serving's entrypoint with tensord: one model from $MODEL_BASE_PATH/$MODEL_NAME;
# extra arguments (e.g. --model_config_file=...) are appended and override. exec, so that tensord
# receives the stop signal from tini itself.
exec /usr/local/bin/tensord --port=8500 --rest_api_port=8501 \
    --model_name="${MODEL_NAME}" --model_base_path="${MODEL_BASE_PATH}/${MODEL_NAME}" "$@"
