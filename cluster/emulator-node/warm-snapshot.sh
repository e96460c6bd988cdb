#!/usr/bin/env bash
# Boot the "prorex" AVD once, let it settle, install the uiautomator2 agent,
# and save the snapshot "prorex-warm" that every worker's emulator starts from.
# Needs /dev/kvm:
#   docker run --name warm --device /dev/kvm REGISTRY/prorex-emulator-node:latest bash /home/ray/warm-snapshot.sh
#   docker commit warm REGISTRY/prorex-emulator-node:latest && docker push REGISTRY/prorex-emulator-node:latest
set -euo pipefail
PORT=5554
SERIAL="emulator-${PORT}"

emulator -avd prorex -port "${PORT}" -no-window -no-audio -no-boot-anim \
    -gpu swiftshader_indirect -no-snapshot-load > /tmp/emulator.log 2>&1 &
EMU_PID=$!

adb start-server
adb -s "${SERIAL}" wait-for-device
until [ "$(adb -s "${SERIAL}" shell getprop sys.boot_completed 2>/dev/null | tr -d '\r')" = "1" ]; do
    sleep 5
done
# Quiet the device: no animations, screen stays on, unlocked.
adb -s "${SERIAL}" shell settings put global window_animation_scale 0
adb -s "${SERIAL}" shell settings put global transition_animation_scale 0
adb -s "${SERIAL}" shell settings put global animator_duration_scale 0
adb -s "${SERIAL}" shell svc power stayon true
adb -s "${SERIAL}" shell input keyevent 82
# Install the uiautomator2 agent now so no worker pays for it at start.
python -c "import uiautomator2 as u2; print(u2.connect('${SERIAL}').info)"
sleep 10

adb -s "${SERIAL}" emu avd snapshot save prorex-warm
adb -s "${SERIAL}" emu kill
wait "${EMU_PID}" || true
echo "saved snapshot prorex-warm"
