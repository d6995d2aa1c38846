package transform

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/resource"
	"k8s.io/kubernetes/pkg/apis/storage"
	storageutil "k8s.io/kubernetes/pkg/apis/storage/util"
)

// minorColumns are the columns of older releases that the pinned printers
// dropped, by kind and by the name minors.txt gives them.
var minorColumns = map[string]map[string]minorColumn{
	// 1.34 and older: printServiceAccount printed len(secrets) as an
	// integer in a column declared string; removed in 1.35.
	"ServiceAccount": {"Secrets": {
		def: metav1.TableColumnDefinition{Name: "Secrets", Type: "string", Description: corev1.ServiceAccount{}.SwaggerDoc()["secrets"]},
		cell: func(obj runtime.Object) any {
			return int64(len(obj.(*api.ServiceAccount).Secrets))
		},
	}},
}

// cellChanges are the cells whose logic changed since an older release,
// newest change first within a kind.
var cellChanges = []cellChange{
	// 1.37 marks only the effective default StorageClass (the newest of
	// those annotated default); before, every annotated one.
	{kind: "StorageClass", upTo: 36, fix: func(_ int, obj runtime.Object, c rowCells) {
		sc := obj.(*storage.StorageClass)
		name := sc.Name
		if storageutil.IsDefaultAnnotation(sc.ObjectMeta) {
			name += " (default)"
		}
		c.set("Name", name)
	}},
	// 1.36 added the " (default)" marker to IngressClasses.
	{kind: "IngressClass", upTo: 35, fix: func(_ int, obj runtime.Object, c rowCells) {
		c.set("Name", obj.(interface{ GetName() string }).GetName())
	}},
	// 1.36 appended the architecture to KERNEL-VERSION.
	{kind: "Node", upTo: 35, fix: func(_ int, obj runtime.Object, c rowCells) {
		kernel := obj.(*api.Node).Status.NodeInfo.KernelVersion
		if kernel == "" {
			kernel = "<unknown>"
		}
		c.set("Kernel-Version", kernel)
	}},
	{kind: "Pod", upTo: 34, fix: podCellsBefore135},
	// Up to 1.34 (storagemigration.k8s.io/v1alpha1) RESOURCE was
	// resource.version.group; the pin's v1beta1 keeps no version, so it is
	// read from the item as the bundle holds it.
	{kind: "StorageVersionMigration", upTo: 34, fix: func(_ int, _ runtime.Object, c rowCells) {
		var item struct {
			Spec struct {
				Resource struct{ Group, Version, Resource string } `json:"resource"`
			} `json:"spec"`
		}
		if c.raw == nil || json.Unmarshal(c.raw, &item) != nil {
			return
		}
		r := item.Spec.Resource
		c.set("Resource", r.Resource+"."+r.Version+"."+r.Group)
	}},
	// 1.31 (resource.k8s.io/v1alpha3) still had deallocationRequested,
	// which the pin's type lacks: read from the item.
	{kind: "ResourceClaim", upTo: 31, fix: func(_ int, obj runtime.Object, c rowCells) {
		var item struct {
			Status struct {
				DeallocationRequested bool `json:"deallocationRequested"`
			} `json:"status"`
		}
		if c.raw != nil {
			_ = json.Unmarshal(c.raw, &item) // the pinned printers read the same bytes
		}
		claim := obj.(*resource.ResourceClaim)
		c.set("State", claimStateBefore132(claim.DeletionTimestamp != nil, claim.Status.Allocation != nil,
			len(claim.Status.ReservedFor) > 0, item.Status.DeallocationRequested))
	}},
	// 1.34 added the SuccessCriteriaMet status, between FailureTarget and
	// Running; the STATUS column itself came in 1.30.
	{kind: "Job", upTo: 33, fix: func(_ int, obj runtime.Object, c rowCells) {
		if status, _ := c.get("Status"); status == "SuccessCriteriaMet" {
			c.set("Status", "Running")
		}
	}},
	// 1.29 to 1.33 marked the default VolumeAttributesClass by its alpha
	// annotation.
	{kind: "VolumeAttributesClass", upTo: 33, fix: func(_ int, obj runtime.Object, c rowCells) {
		vac := obj.(*storage.VolumeAttributesClass)
		if vac.Annotations["volumeattributesclass.alpha.kubernetes.io/is-default-class"] == "true" {
			c.set("Name", vac.Name+" (default)")
		}
	}},
	// 1.26 and 1.27 printed a paramRef without a namespace by its name
	// alone; 1.28 prefixed "*/" (the namespace cannot be told from the
	// binding) and printed a selector when there is no name.
	{kind: "ValidatingAdmissionPolicyBinding", upTo: 27, fix: func(_ int, obj runtime.Object, c rowCells) {
		if pr := obj.(*admissionregistration.ValidatingAdmissionPolicyBinding).Spec.ParamRef; pr != nil && pr.Namespace == "" {
			c.set("ParamRef", pr.Name)
		}
	}},
	// 1.30 named the resource of Resource and ContainerResource metrics
	// in TARGETS ("cpu: 45%/80%"); before, "45%/80%".
	{kind: "HorizontalPodAutoscaler", upTo: 29, fix: hpaTargetsBefore130},
	// 1.22 added ReadWriteOncePod, printed last as RWOP; older releases
	// did not know it.
	{kind: "PersistentVolume", upTo: 21, fix: withoutRWOP},
	{kind: "PersistentVolumeClaim", upTo: 21, fix: withoutRWOP},
	// 1.23 stopped adding one to a series' count (the singleton event
	// before the series is no longer counted).
	{kind: "Event", upTo: 22, fix: func(_ int, obj runtime.Object, c rowCells) {
		if ev := obj.(*api.Event); ev.Series != nil {
			c.set("Count", int64(ev.Series.Count+1))
		}
	}},
}

// withoutRWOP drops RWOP from ACCESS MODES.
func withoutRWOP(_ int, _ runtime.Object, c rowCells) {
	v, _ := c.get("Access Modes")
	if modes, ok := v.(string); ok {
		if modes == "RWOP" {
			modes = ""
		}
		c.set("Access Modes", strings.TrimSuffix(modes, ",RWOP"))
	}
}

// hpaTargetsBefore130 drops the resource name the 1.30 printers put
// before each Resource and ContainerResource metric of TARGETS; the
// metrics are shown in spec order, two at most.
func hpaTargetsBefore130(_ int, obj runtime.Object, c rowCells) {
	hpa := obj.(*autoscaling.HorizontalPodAutoscaler)
	v, _ := c.get("Targets")
	cell, ok := v.(string)
	if !ok || len(hpa.Spec.Metrics) == 0 {
		return
	}
	shown, more, _ := strings.Cut(cell, " + ")
	parts := strings.Split(shown, ", ")
	for i, spec := range hpa.Spec.Metrics {
		if i >= len(parts) {
			break
		}
		var name string
		switch {
		case spec.Type == autoscaling.ResourceMetricSourceType && spec.Resource != nil:
			name = spec.Resource.Name.String()
		case spec.Type == autoscaling.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
			name = spec.ContainerResource.Name.String()
		default:
			continue
		}
		parts[i] = strings.TrimPrefix(parts[i], name+": ")
	}
	out := strings.Join(parts, ", ")
	if more != "" {
		out += " + " + more
	}
	c.set("Targets", out)
}

// podCellsBefore135 computes READY, STATUS and RESTARTS as printPod did
// before 1.35, release by release:
//   - 1.22 added "(<age> ago)" to RESTARTS, which was an integer before;
//   - 1.26 added the SchedulingGated status;
//   - 1.28 counted native sidecars (restartable init containers) in READY
//     and RESTARTS, and the "(ago)" suffix only with restarts;
//   - 1.31 stopped printing Terminating for a pod in a terminal phase;
//   - 1.35 (the pinned logic) reports a failed container of a pod whose
//     STATUS would be Completed.
func podCellsBefore135(minor int, obj runtime.Object, c rowCells) {
	pod := obj.(*api.Pod)
	sidecars := minor >= 28
	restarts, sidecarRestarts := 0, 0
	total := len(pod.Spec.Containers)
	ready := 0
	var lastRestart, lastSidecarRestart time.Time
	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	if minor >= 26 {
		for _, cond := range pod.Status.Conditions {
			if cond.Type == api.PodScheduled && cond.Reason == corev1.PodReasonSchedulingGated {
				reason = corev1.PodReasonSchedulingGated
			}
		}
	}
	restartable := map[string]bool{}
	if sidecars {
		for _, ic := range pod.Spec.InitContainers {
			if ic.RestartPolicy != nil && *ic.RestartPolicy == api.ContainerRestartPolicyAlways {
				restartable[ic.Name] = true
				total++
			}
		}
	}
	later := func(last *time.Time, s api.ContainerStatus) {
		if t := s.LastTerminationState.Terminated; t != nil && last.Before(t.FinishedAt.Time) {
			*last = t.FinishedAt.Time
		}
	}
	initializing := false
	for i, s := range pod.Status.InitContainerStatuses {
		restarts += int(s.RestartCount)
		later(&lastRestart, s)
		if restartable[s.Name] {
			sidecarRestarts += int(s.RestartCount)
			later(&lastSidecarRestart, s)
		}
		switch {
		case s.State.Terminated != nil && s.State.Terminated.ExitCode == 0:
			continue
		case restartable[s.Name] && s.Started != nil && *s.Started:
			if s.Ready {
				ready++
			}
			continue
		case s.State.Terminated != nil:
			switch t := s.State.Terminated; {
			case t.Reason != "":
				reason = "Init:" + t.Reason
			case t.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", t.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
			}
		case s.State.Waiting != nil && s.State.Waiting.Reason != "" && s.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + s.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing || sidecars && podConditionTrue(pod, api.PodInitialized) {
		if sidecars {
			restarts, lastRestart = sidecarRestarts, lastSidecarRestart
		} else {
			// Before sidecars only the count restarted; the last restart
			// time kept the init containers'.
			restarts = 0
		}
		hasRunning := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			s := pod.Status.ContainerStatuses[i]
			restarts += int(s.RestartCount)
			later(&lastRestart, s)
			switch t := s.State.Terminated; {
			case s.State.Waiting != nil && s.State.Waiting.Reason != "":
				reason = s.State.Waiting.Reason
			case t != nil && t.Reason != "":
				reason = t.Reason
			case t != nil && t.Signal != 0:
				reason = fmt.Sprintf("Signal:%d", t.Signal)
			case t != nil:
				reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
			case s.Ready && s.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" && hasRunning {
			if anyPodConditionTrue(pod, api.PodReady) {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}
	terminal := pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed
	if pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost" {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && (minor < 31 || !terminal) {
		reason = "Terminating"
	}
	c.set("Ready", fmt.Sprintf("%d/%d", ready, total))
	c.set("Status", reason)
	switch {
	case minor < 22:
		c.set("Restarts", int64(restarts))
	case !lastRestart.IsZero() && (restarts != 0 || !sidecars):
		c.set("Restarts", fmt.Sprintf("%d (%s ago)", restarts, duration.HumanDuration(time.Since(lastRestart))))
	default:
		c.set("Restarts", strconv.Itoa(restarts))
	}
}

// podConditionTrue says whether the pod's first condition of that type
// is True (isPodInitializedConditionTrue).
func podConditionTrue(pod *api.Pod, t api.PodConditionType) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == t {
			return cond.Status == api.ConditionTrue
		}
	}
	return false
}

// anyPodConditionTrue says whether any condition of that type is True
// (hasPodReadyCondition).
func anyPodConditionTrue(pod *api.Pod, t api.PodConditionType) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == t && cond.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}

// metadataForMinor changes a row's object metadata where the pinned
// decoding gives it what the minor's server did not: 1.21 labelled every
// namespace with kubernetes.io/metadata.name (NamespaceDefaultLabelName),
// which the pinned defaulting adds as it decodes; a 1.20 namespace had the
// label only where someone set it, as its item shows.
func metadataForMinor(minor int, kind string, partial *metav1.PartialObjectMetadata, raw json.RawMessage) {
	if minor > 20 || kind != "Namespace" || raw == nil {
		return
	}
	var item struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &item) != nil {
		return
	}
	if _, set := item.Metadata.Labels[corev1.LabelMetadataName]; !set {
		// The row's labels are its object's (detach): changed on a copy.
		partial.Labels = maps.Clone(partial.Labels)
		delete(partial.Labels, corev1.LabelMetadataName)
		if len(partial.Labels) == 0 {
			partial.Labels = nil
		}
	}
}
