"""A FlexStack station for the GeoNetworking tests: run as its own process, in its own network
namespace, with FlexStack's own virtual environment (FlexStack pins ecdsa 0.18.0, the interop
suite 0.19.2, so it cannot live in the suite's venv; scripts/test makes .venv-flexstack):

    ip netns exec gn-stack-a .venv-flexstack/bin/python tests/interop/_flexstack.py \\
        --iface gn0 --station-id 1 --lat 41.3873 --lon 2.1125 --cam-rate 10

The station is FlexStack's raw-Ethernet link layer (ethertype 0x8947, every frame to the
broadcast MAC, its own MAC as the source), its GeoNetworking router with security disabled
(itsGnSecurity DISABLED, no sign or verify service), BTP, and its CA and DEN basic services.
Its GN address is a passenger car's with the interface's MAC as the MID.

stdout carries one JSON object a line, and nothing else (FlexStack's own prints go to stderr):
  {"event": "ready", "station_id": 1, "mac": "02:47:4e:0a:00:01", "time": 1.7e9}
  {"event": "sent", "type": "denm", "station_id": 1, "sequence": 0, "time": ...}
  {"event": "received", "type": "cam", "station_id": 2, "time": ...}
  {"event": "received", "type": "denm", "station_id": 2, "sequence": 0, "time": ...}
  {"event": "thread-died", "thread": "Thread-1 (receive)", "error": "ValueError(...)", ...}
(the last when one of FlexStack's threads ends on an exception: its receive thread does so on
the first packet it cannot parse, other than an unknown Basic Header next header of 0 or a
version other than 1; the station is then deaf.)
stdin takes commands, one a line: `denm` sends one DENM (a collision-risk warning, GBC to a
circle of 100 m round the station); `quit` or end of input stops the station.

CAM rate: FlexStack's CA basic service generates CAMs by the rules of EN 302 637-2 (TS 103 900):
1 Hz for a station that stands still, up to 10 Hz while its position changes by more than 4 m
between checks. --cam-rate R above 1 moves the station back and forth by 5 m every 1/R s, so
it sends about R CAMs a second (at most 10); 0 stops the CA basic service.

The one adaptation: FlexStack's GBC request path asks for a sign service whenever the request
carries the DENM security profile, even with itsGnSecurity DISABLED; with security disabled
the station's GN data requests are passed on with the profile NO_SECURITY.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
import time
from pathlib import Path

from flexstack.btp.router import Router as BTPRouter
from flexstack.facilities.ca_basic_service.ca_basic_service import (
    CooperativeAwarenessBasicService,
)
from flexstack.facilities.ca_basic_service.cam_transmission_management import VehicleData
from flexstack.facilities.decentralized_environmental_notification_service.den_service import (
    DecentralizedEnvironmentalNotificationService,
)
from flexstack.facilities.decentralized_environmental_notification_service.denm_transmission_management import (  # noqa: E501
    DecentralizedEnvironmentalNotificationMessage,
)
from flexstack.applications.road_hazard_signalling_service.service_access_point import (
    DENRequest,
)
from flexstack.geonet.gn_address import MID, GNAddress, M, ST
from flexstack.geonet.mib import MIB, GnSecurity
from flexstack.geonet.router import Router as GNRouter
from flexstack.linklayer.raw_link_layer import RawLinkLayer
from flexstack.security.security_profiles import SecurityProfile
from flexstack.utils.static_location_service import generate_tpv_dict_with_current_timestamp
from flexstack.utils.time_service import TimeService

# 5 m north, in degrees of latitude: more than the CA basic service's 4 m threshold.
STEP_DEG = 5 / 111_320


class Output:
    """JSON lines on a file descriptor of their own, one writer at a time."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def write(self, **event) -> None:
        event.setdefault("time", time.time())
        with self.lock:
            self.stream.write(json.dumps(event) + "\n")
            self.stream.flush()


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iface", required=True, help="the raw-Ethernet interface")
    parser.add_argument("--mac", help="the station's MAC and GN address MID "
                        "(default: the interface's MAC)")
    parser.add_argument("--station-id", type=int, required=True, help="the ITS station id")
    parser.add_argument("--lat", type=float, default=41.387304, help="latitude (degrees)")
    parser.add_argument("--lon", type=float, default=2.112485, help="longitude (degrees)")
    parser.add_argument("--cam-rate", type=float, default=1.0,
                        help="CAMs per second, 0 to 10 (default 1; 0: no CA basic service)")
    parser.add_argument("--beacon-interval", type=int, default=0,
                        help="GN beacon interval in ms (default 0: FlexStack's default, no "
                        "beacons; a beacon is due only when no SHB went out in the interval)")
    parser.add_argument("--out", type=Path, help="write the JSON lines here, not to stdout")
    args = parser.parse_args(argv)
    if not 0 <= args.cam_rate <= 10:
        parser.error("--cam-rate must be between 0 and 10")
    return args


def interface_mac(iface: str) -> str:
    return Path(f"/sys/class/net/{iface}/address").read_text().strip()


class Station:
    """FlexStack's GN router, BTP router, CA and DEN basic services on one interface."""

    def __init__(self, args: argparse.Namespace, out: Output) -> None:
        self.args = args
        self.out = out
        mac = bytes.fromhex((args.mac or interface_mac(args.iface)).replace(":", ""))
        self.mac = mac
        mib = MIB(
            itsGnLocalGnAddr=GNAddress(m=M.GN_UNICAST, st=ST.PASSENGER_CAR, mid=MID(mac)),
            itsGnSecurity=GnSecurity.DISABLED,
            itsGnBeaconServiceRetransmitTimer=args.beacon_interval,
        )
        self.gn_router = GNRouter(mib=mib, sign_service=None, verify_service=None)
        self._send_unsecured()
        self.btp_router = BTPRouter(self.gn_router)
        self.gn_router.register_indication_callback(self.btp_router.btp_data_indication)
        self.vehicle_data = VehicleData(station_id=args.station_id, station_type=5)
        self.ca_service = CooperativeAwarenessBasicService(self.btp_router, self.vehicle_data)
        self.ca_service.cam_reception_management.add_application_callback(self._on_cam)
        self.den_service = DecentralizedEnvironmentalNotificationService(
            self.btp_router, self.vehicle_data)
        denm_reception = self.den_service.denm_reception_management.reception_callback
        self.btp_router.register_indication_callback_btp(
            port=2002, callback=lambda indication: self._on_denm(indication, denm_reception))
        self.btp_router.freeze_callbacks()
        self.position = (args.lat, args.lon)
        self.denm_sequence = 0
        self.stopped = threading.Event()
        self._tick(0)
        self.link_layer = RawLinkLayer(args.iface, mac, self.gn_router.gn_data_indicate)
        self.gn_router.link_layer = self.link_layer

    def _send_unsecured(self) -> None:
        """With security disabled, every GN data request goes out without a security profile."""
        request_unsecured = self.gn_router.gn_data_request

        def gn_data_request(request):
            request = dataclasses.replace(request, security_profile=SecurityProfile.NO_SECURITY)
            return request_unsecured(request)

        self.gn_router.gn_data_request = gn_data_request

    def _on_cam(self, cam: dict) -> None:
        self.out.write(event="received", type="cam", station_id=cam["header"]["stationId"])

    def _on_denm(self, indication, denm_reception) -> None:
        denm_reception(indication)
        denm = self.den_service.denm_coder.decode(indication.data)
        self.out.write(event="received", type="denm", station_id=denm["header"]["stationId"],
                       sequence=denm["denm"]["management"]["actionId"]["sequenceNumber"])

    def _tick(self, count: int) -> None:
        """Feeds the position to the GN router and the CA basic service."""
        lat, lon = self.position
        if self.args.cam_rate > 1 and count % 2:
            lat += STEP_DEG
        tpv = generate_tpv_dict_with_current_timestamp(lat, lon)
        self.gn_router.refresh_ego_position_vector(tpv)
        self.ca_service.cam_transmission_management.location_service_callback(tpv)

    def run_position(self) -> None:
        period = 1 / self.args.cam_rate if self.args.cam_rate > 1 else 1.0
        count = 1
        while not self.stopped.wait(period):
            self._tick(count)
            count += 1

    def send_denm(self) -> None:
        lat, lon = self.position
        request = DENRequest(
            detection_time=int(TimeService.timestamp_its()),
            event_position={
                "latitude": round(lat * 10_000_000),
                "longitude": round(lon * 10_000_000),
                "positionConfidenceEllipse": {
                    "semiMajorConfidence": 4095,
                    "semiMinorConfidence": 4095,
                    "semiMajorOrientation": 3601,
                },
                "altitude": {"altitudeValue": 800001, "altitudeConfidence": "unavailable"},
            },
            lcrw_cause_code="collisionRisk97",
            lcrw_subcause_code=4,
        )
        denm = DecentralizedEnvironmentalNotificationMessage()
        denm.sequence_number = self.denm_sequence
        self.denm_sequence += 1
        denm.fullfill_with_vehicle_data(self.vehicle_data)
        denm.fullfill_with_collision_risk_warning(request)
        self.den_service.denm_transmission_management.transmit_denm(denm)
        self.out.write(event="sent", type="denm", station_id=self.args.station_id,
                       sequence=denm.denm["denm"]["management"]["actionId"]["sequenceNumber"])

    def start(self) -> None:
        threading.Thread(target=self.run_position, daemon=True).start()
        if self.args.cam_rate > 0:
            self.ca_service.start()
        self.out.write(event="ready", station_id=self.args.station_id,
                       mac=":".join(f"{b:02x}" for b in self.mac))

    def stop(self) -> None:
        self.stopped.set()
        self.ca_service.stop()


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    stream = (args.out.open("a", encoding="utf-8") if args.out
              else os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8"))
    sys.stdout = sys.stderr  # FlexStack prints its diagnostics: keep them off the JSON lines
    out = Output(stream)

    def thread_died(hook: threading.ExceptHookArgs) -> None:
        # FlexStack's receive thread ends on the first exception other than
        # NotImplementedError (an unknown next header, a truncated packet...): say so.
        out.write(event="thread-died", thread=hook.thread.name if hook.thread else None,
                  error=repr(hook.exc_value))
        threading.__excepthook__(hook)

    threading.excepthook = thread_died
    station = Station(args, out)
    station.start()
    for line in sys.stdin:
        command = line.strip()
        if command == "denm":
            station.send_denm()
        elif command == "quit":
            break
        elif command:
            print(f"_flexstack: unknown command {command!r}", file=sys.stderr)
    station.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
